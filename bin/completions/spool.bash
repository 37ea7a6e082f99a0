# bash completion for spool-send, spool-enqueue and spool-ctl: subcommands, options, and the values spool
# knows (origins from the spool's .origins, handler names, auth profile names, queued ids).
#
# One file for the three commands: bash-completion loads completions/NAME when NAME is first completed, so
# this file is installed under each name (as links) and defines all three. It works without bash-completion
# too (sourced from ~/.bashrc), then without its handling of ':' in origins.
#
# Every lookup only lists names: nothing in the spool is run, and a name is never expanded (compgen -W
# would expand a file named $(...)), only matched and quoted. The listings run in subshells (< <(...)), so
# the shell options they set stay there.

# The words as bash-completion splits them (an origin's ':' and an option's '=value' kept in one word), else
# as bash does. Sets the caller's cur, prev, words and cword; returns 1 when there is nothing to complete.
_spool_init() {
    if declare -F _init_completion >/dev/null; then
        _init_completion -s -n : || return 1
    else
        COMPREPLY=()
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
    fi
}

# The words before the cursor that are neither options nor their values, in the caller's array args.
# $@: the options that take a value.
_spool_args() {
    local i valued=" $* "
    args=()
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        -?*) [[ $valued == *" ${words[i]} "* ]] && ((i++)) ;;
        *) args+=("${words[i]}") ;;
        esac
    done
}

# Adds the lines of standard input that start with $cur to COMPREPLY, quoted for the shell.
_spool_add() {
    local word
    while IFS= read -r word; do
        [[ -n $word && $word == "$cur"* ]] || continue
        printf -v word %q "$word"
        COMPREPLY+=("$word")
    done
}

# Adds the words given that start with $cur: spool's own words, never a name read from disk.
_spool_words() {
    local IFS=$'\n'
    mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W "$*" -- "$cur")
}

# Files, or with -d directories.
_spool_paths() {
    if declare -F _filedir >/dev/null; then
        _filedir "$@"
    else
        compopt -o filenames 2>/dev/null
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen "${1:--f}" -- "$cur")
    fi
}

# The value of option $1 on the line before the cursor, or nothing.
_spool_option() {
    local i value=
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        "$1") ((i + 1 < cword)) && value=${words[i + 1]} ;;
        "$1"=*) value=${words[i]#*=} ;;
        esac
    done
    # As typed: a leading ~ is not expanded yet.
    [[ $value == "~"/* ]] && value=$HOME/${value#"~/"}
    printf '%s\n' "$value"
}

# The spool the line names, as the programs choose it: --spool DIR, else $SPOOL_DIR, else ./spool.
_spool_dir() {
    local dir
    dir=$(_spool_option --spool)
    printf '%s\n' "${dir:-${SPOOL_DIR:-spool}}"
}

# The ids in the spool's folders $2...: entries but hidden ones and reasons (*.why), up to the last ':' (a
# name is ID, ID:STATE or ID:STATE@CLAIM). $1 keeps those on hold (held), those not (free), or all (any).
_spool_ids() {
    local spool keep=$1 folder name
    shopt -s nullglob
    shopt -u dotglob failglob
    spool=$(_spool_dir)
    shift
    for folder; do
        for name in "$spool/$folder"/*; do
            name=${name##*/}
            case $name in
            *.why) continue ;;
            *:*,s=held*) [[ $keep != free ]] || continue ;;
            *) [[ $keep != held ]] || continue ;;
            esac
            printf '%s\n' "${name%:*}"
        done
    done
}

# The origins the sender has met, from the spool's .origins: the first field of each line (a regular file
# only: reading a FIFO would hang the shell).
_spool_origins() {
    local file origin rest
    file=$(_spool_dir)/.origins
    [[ -f $file && -r $file ]] || return
    while read -r origin rest; do
        [[ $origin == *://* ]] && printf '%s\n' "$origin"
    done 2>/dev/null <"$file" | sort -u
}

# The names in directory $1 but hidden ones: auth profiles, handlers.
_spool_names() {
    local name
    shopt -s nullglob
    shopt -u dotglob failglob
    [[ -n $1 ]] || return
    for name in "$1"/*; do
        printf '%s\n' "${name##*/}"
    done
}

# The handler directory spool-send would use without --handler-dir: $SPOOL_HANDLER_DIR, else handler-dir in
# $SPOOL_CONFIG (spool-enqueue, which names handlers, has neither option).
_spool_handler_dir() {
    if [[ -n ${SPOOL_HANDLER_DIR:-} ]]; then
        printf '%s\n' "$SPOOL_HANDLER_DIR"
    elif [[ -f ${SPOOL_CONFIG:-} && -r $SPOOL_CONFIG ]]; then
        sed -n 's/^[[:space:]]*handler-dir[[:space:]]*=[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$SPOOL_CONFIG" \
            2>/dev/null | head -n 1
    fi
}

# Adds lines of standard input that may hold ':' (origins): bash-completion trims what bash will not replace.
_spool_add_colons() {
    _spool_add
    declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
    return 0
}

_spool_ctl() {
    local cur prev words cword split=false args
    _spool_init || return
    case $prev in
    --spool | --auth-dir | --handler-dir) _spool_paths -d; return ;;
    --output | --config) _spool_paths; return ;;
    --origin) _spool_add_colons < <(_spool_origins); return ;;
    --last-error) _spool_words 4xx 5xx refused dns timeout lost tls network auth handler; return ;;
    --older-than | --key | --url-prefix | --if-match) return ;;
    esac
    _spool_args --spool --origin --older-than --last-error --key --url-prefix --if-match --output --config \
        --auth-dir --handler-dir
    local subcommand=${args[0]-} filters='--origin --older-than --last-error' options=
    case $subcommand in
    list) options="$filters --json" ;;
    show) options='--json --diff' ;;
    stats) options='--json --prometheus --output' ;;
    retry) options="--all-failed --all-conflict $filters --if-match --now" ;;
    flush) options='--origin --yes' ;;
    hold | release) options="$filters --key" ;;
    resolve) options='--keep-mine --keep-theirs --edit' ;;
    pending) options='--key --url-prefix --json' ;;
    discard) options="--all-failed --all-conflict $filters --yes" ;;
    check) options='--config --auth-dir --handler-dir' ;;
    esac
    if [[ $cur == -* ]]; then
        _spool_words $options --spool --help
        return
    fi
    # show and resolve take one id; the others any number.
    case $subcommand,${#args[@]} in
    ,*) _spool_words init list shape show stats retry flush hold release resolve pending discard check cgi ;;
    list,1) _spool_words new cur failed conflict all ;;
    shape,1) _spool_words waiting new cur failed conflict all ;;
    show,1 | discard,*) _spool_add < <(_spool_ids any new cur failed conflict) ;;
    retry,*) _spool_add < <(_spool_ids any failed conflict new) ;;
    resolve,1) _spool_add < <(_spool_ids any conflict) ;;
    hold,*) _spool_add < <(_spool_ids free new) ;;
    release,*) _spool_add < <(_spool_ids held new) ;;
    esac
}

_spool_send() {
    local cur prev words cword split=false
    _spool_init || return
    case $prev in
    --spool | --auth-dir | --handler-dir) _spool_paths -d; return ;;
    --cacert | --config) _spool_paths; return ;;
    --allow-origin) _spool_add_colons < <(_spool_origins); return ;;
    --concurrency | --threads | --timeout | --min-backoff | --max-backoff | --lifetime | --warn-after | --lease | \
        --poll | --max-size | --max-payload | --proxy | --noproxy | --max-rate)
        return
        ;;
    esac
    _spool_words --spool --once --watch --flush --concurrency --threads --timeout --min-backoff --max-backoff \
        --lifetime --warn-after --lease --poll --auth-dir --handler-dir --no-fetch-on-conflict --max-size \
        --max-payload --allow-origin --cacert --proxy --noproxy --http1.1 --max-rate --config --verbose --quiet \
        --help
}

_spool_enqueue() {
    local cur prev words cword split=false args
    _spool_init || return
    case $prev in
    --spool) _spool_paths -d; return ;;
    --body-file | --payload | --document | --batch | -T | --upload-file) _spool_paths; return ;;
    --auth) _spool_add < <(_spool_names "${SPOOL_AUTH_DIR:-}"); return ;; # it has no --auth-dir
    --handler) _spool_add < <(_spool_names "$(_spool_handler_dir)"); return ;;
    --depends-on) _spool_add < <(_spool_ids any new cur); return ;;
    -X | --request) _spool_words PUT POST PATCH DELETE; return ;;
    esac
    local valued=(--spool --body --body-file --payload --document --batch --if-match --key --idempotency-key
        --depends-on --not-before --expires --max-attempts --priority --auth --handler --max-size --max-payload
        --max-queue --min-free -X --request -H --header -d --data --data-ascii --data-binary --data-raw
        --data-urlencode --json -T --upload-file -A --user-agent -e --referer -b --cookie -F --form)
    [[ " ${valued[*]} " == *" $prev "* ]] && return
    if [[ $cur == -* ]]; then
        _spool_words --spool --body --body-file --payload --document --batch --if-match --key --idempotency-key \
            --depends-on --coalesce --merge --creates --allow-get --not-before --expires --max-attempts \
            --priority --auth --handler --max-size --max-payload --max-queue --min-free --help --request \
            --header --data --data-binary --data-raw --data-urlencode --json --upload-file --user-agent \
            --referer --cookie --form --silent --show-error --fail --fail-with-body
        return
    fi
    # A handler's arguments are its own. A request's words are METHOD (upper case) and URL, which may start
    # with an origin the spool knows, left open for its path.
    [[ -n $(_spool_option --handler) ]] && return
    _spool_args "${valued[@]}"
    case ${#args[@]} in
    0) [[ $cur == [A-Z]* || -z $cur ]] && _spool_words PUT POST PATCH DELETE ;;
    1) [[ ${args[0]} =~ ^[A-Z]+$ ]] || return ;;
    *) return ;;
    esac
    if [[ $cur != [A-Z]* ]]; then
        compopt -o nospace 2>/dev/null
        _spool_add_colons < <(_spool_origins | sed 's,$,/,')
    fi
}

complete -F _spool_ctl spool-ctl
complete -F _spool_send spool-send
complete -F _spool_enqueue spool-enqueue
