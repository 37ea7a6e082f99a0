#!/bin/sh
# Queue one HTTP write in a spool by the drop protocol of spool(5): usage SPOOL METHOD URL BODY.
# Prints the write's id, and exits 0 only once the write survives a crash or power cut.
# Copy it into your script; it needs POSIX sh, sed, od and GNU coreutils 8.24 or later (sync FILE).
set -eu
[ $# -eq 4 ] || { echo "usage: spool-drop.sh SPOOL METHOD URL BODY" >&2; exit 64; }
spool=$1
for argument in "$2" "$3" "$4"; do
    # Tabs and line ends are written as \t and \n; other control characters are refused.
    if printf '%s' "$argument" | LC_ALL=C tr -d '\t\n' | LC_ALL=C grep -q '[[:cntrl:]]'; then
        echo "spool-drop.sh: control characters in an argument" >&2
        exit 65
    fi
done
# $1 as a JSON string: backslashes and quotes escaped, tabs and line ends as \t and \n (a last line end too).
json() {
    escaped=$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' |
        sed -e ':a' -e 'N' -e '$!ba' -e 's/\n/\\n/g'; printf x)
    escaped=${escaped%x}
    case $escaped in *'
') escaped="${escaped%?}\\n" ;; esac
    printf '"%s"' "$escaped"
}
random() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
host=$(hostname | tr -cd 'A-Za-z0-9.-' | cut -c1-40)
# Unique: the time in nanoseconds, this process, a random part; sorts by time.
name=$(date +%s%N).$$.$(random 4).${host:-host}
document=$(printf '{"method":%s,"url":%s,"body":%s,"idempotency_key":"%s"}' \
    "$(json "$2")" "$(json "$3")" "$(json "$4")" "$(random 16)")
umask 077
set -C                                # noclobber: > creates the file or fails, never writes over another's
printf '%s\n' "$document" > "$spool/tmp/$name" || exit 75
sync "$spool/tmp/$name" || { rm -f "$spool/tmp/$name"; exit 75; }   # on disk before its name is in new/
mv "$spool/tmp/$name" "$spool/new/$name" || exit 75                  # no reader sees half a file
sync "$spool/new" || exit 75                                         # the name survives a power cut
echo "$name"
