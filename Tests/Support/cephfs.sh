#!/bin/bash
# cephfs.sh start|stop|cut|heal|remount DIR: a throw-away CephFS for the shared-spool tests, from Debian's own
# packages (ceph-mon, ceph-osd, ceph-mds, ceph-fuse), living entirely under DIR: one monitor on 127.0.0.1,
# one OSD on a memory store, one MDS, no manager (a file system is made and mounted without one), and three
# ceph-fuse mounts DIR/m1..m3, one client per "host". The third client runs in a cgroup v2 of its own, so
# that `cut` can drop every packet it sends (a silent partition) until `heal`. Ceph fences a client it could
# not reach (after 5 s when another client waits for what it holds, else after session_autoclose, 30 s, its
# least) by blocklisting it: its mount answers ESHUTDOWN from then on, and `remount` gives DIR/m3 a new
# client, as an administrator does. Outside DIR it touches only that cgroup, the FUSE mounts, an nftables
# table and ports on 127.0.0.1. Run as root.
set -eu
command=${1:?usage: $0 start|stop|cut|heal|remount DIR}
D=$(realpath -m "${2:?usage: $0 $command DIR}")
C="-c $D/ceph.conf"
table=spoolceph$(basename "$D" | tr -cd 'a-zA-Z0-9')

# Mounts DIR/m$1 with its own client; the third from a shell moved into the partition's cgroup first.
mount_client() {
    local fuse="ceph-fuse $C -n client.h$1 $D/m$1"
    if [ "$1" = 3 ]; then
        /bin/sh -c "echo \$\$ >$(cat "$D/cgroup")/cgroup.procs && exec $fuse" >>"$D/log/fuse.log" 2>&1
    else
        $fuse >>"$D/log/fuse.log" 2>&1
    fi
    for _ in $(seq 300); do mountpoint -q "$D/m$1" && stat "$D/m$1/." >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "DIR/m$1 did not mount; see $D/log" >&2
    return 1
}

# The pids named in DIR/run/NAME.pid whose command line names DIR.
ours() {
    for file in "$@"; do
        [ -f "$file" ] || continue
        pid=$(cat "$file" 2>/dev/null) || continue
        grep -qF "$D/" "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
    done
    return 0
}

# Waits (5 s at most) until the processes $@ are gone or zombies.
wait_gone() {
    for _ in $(seq 100); do
        local left=
        for pid in "$@"; do
            [ -d "/proc/$pid" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$pid/stat" 2>/dev/null && left=1
        done
        [ -z "$left" ] && return 0
        sleep 0.05
    done
}

start() {
    # A free port outside the daemons' range (6800-7300) and the ephemeral one.
    local port
    port=$(/usr/bin/python3 -c '
import random, socket
for p in random.sample(range(7400, 9999), 2599):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError: pass
    finally: s.close()')
    rm -rf "$D"
    mkdir -p "$D"/{mon,osd/0,mds,run,log,crash,m1,m2,m3}
    local fsid
    fsid=$(uuidgen)
    cat >"$D/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$port
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr1 = false
ms bind ipv6 = false
keyring = $D/keyring
run dir = $D/run
admin socket = $D/run/\$name.asok
pid file = $D/run/\$name.pid
log file = $D/log/\$name.log
mon cluster log file = default=$D/log/\$channel.log cluster=$D/log/cluster.log
crash dir = $D/crash
mon data = $D/mon
osd data = $D/osd/\$id
mds data = $D/mds
auth allow insecure global id reclaim = false
# Map changes are batched for 1 s by default: each pool, fs and daemon boot would wait that long.
paxos propose interval = 0.05
mon data avail warn = 1
mon data avail crit = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = 1073741824
osd op num shards = 1
osd op num threads per shard = 2
# Replies only once the MDS journal entry is safe: with early replies a rename keeps its locks until the
# next tick flushes the journal (5 s), and another client's lookup of that name waits as long.
mds early reply = false
# A cap another client waits for is flushed within a tick (5 s by default), and a client that does not give
# one back is evicted after 5 s instead of session_autoclose's 30.
mds tick interval = 0.1
mds cap revoke eviction timeout = 5
client mount timeout = 30

[client]
admin socket = $D/run/\$name.\$pid.asok
log file = $D/log/\$name.log
EOF
    local keyring=$D/keyring
    ceph-authtool --create-keyring "$keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
    ceph-authtool "$keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' \
        >/dev/null
    ceph-authtool "$keyring" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' >/dev/null
    ceph-authtool "$keyring" --gen-key -n mds.a --cap mon 'allow profile mds' --cap osd 'allow *' \
        --cap mds 'allow *' >/dev/null
    for h in 1 2 3; do
        ceph-authtool "$keyring" --gen-key -n client.h$h --cap mon 'allow r' --cap mds 'allow rwp' \
            --cap osd 'allow rw' >/dev/null
    done
    chmod 600 "$keyring"
    monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$port]" "$D/monmap" >/dev/null
    ceph-mon $C -i a --mkfs --monmap "$D/monmap" --keyring "$keyring"
    ceph-mon $C -i a
    local uuid
    uuid=$(uuidgen)
    [ "$(ceph $C osd new "$uuid")" = 0 ] || { echo "the OSD did not get id 0" >&2; return 1; }
    ceph-osd $C -i 0 --mkfs --osd-uuid "$uuid" 2>>"$D/log/mkfs.log"
    ceph-osd $C -i 0 2>>"$D/log/daemons.log"
    ceph $C osd pool create cephfs_metadata 8 >/dev/null 2>&1
    ceph $C osd pool create cephfs_data 8 >/dev/null 2>&1
    ceph $C fs new cephfs cephfs_metadata cephfs_data >/dev/null 2>&1
    # A client silent for 30 s (the least Ceph allows) is stale, then evicted and blocklisted.
    ceph $C fs set cephfs session_timeout 30
    ceph $C fs set cephfs session_autoclose 30
    ceph-mds $C -i a 2>>"$D/log/daemons.log"
    for _ in $(seq 300); do ceph $C mds stat 2>/dev/null | grep -q 'up:active' && break; sleep 0.1; done
    ceph $C mds stat | grep -q 'up:active' || { echo "the MDS never became active" >&2; return 1; }
    local root
    root=$(awk '$3 == "cgroup2" && $2 ~ "^/sys/fs/cgroup" { print $2; exit }' /proc/self/mounts)
    mkdir -p "$root/spool-ceph-$(basename "$D")"
    echo "$root/spool-ceph-$(basename "$D")" >"$D/cgroup"
    for h in 1 2 3; do mount_client $h; done
    # Without a manager statfs says 0 bytes free: a quota on the root makes the clients report it as the size.
    /usr/bin/python3 -c 'import os, sys; os.setxattr(sys.argv[1], "ceph.quota.max_bytes", b"1073741824")' "$D/m1"
}

stop() {
    nft delete table inet "$table" 2>/dev/null || true
    # Lazy unmounts first: nothing blocks on a dead mount afterwards.
    for m in "$D"/m1 "$D"/m2 "$D"/m3; do
        for _ in 1 2 3 4; do grep -qF " $m fuse" /proc/mounts || break; umount -l "$m"; done
    done
    # The data is thrown away: SIGKILL at once (a stopping MDS whose OSD goes too flushes for seconds).
    local pids
    pids=$(ours "$D"/run/*.pid)
    if [ -n "$pids" ]; then
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null || true
        # shellcheck disable=SC2086
        wait_gone $pids
    fi
    [ -f "$D/cgroup" ] && rmdir "$(cat "$D/cgroup")" 2>/dev/null
    rm -rf "$D"
}

cut() {
    local group
    group=$(cat "$D/cgroup")
    group=${group#/sys/fs/cgroup/}
    nft add table inet "$table"
    nft add chain inet "$table" out '{ type filter hook output priority 0; }'
    # `level` counts from the cgroup2 root, which a cgroup namespace hides: match at any depth that exists.
    for level in 1 2 3 4 5 6 7 8; do
        nft add rule inet "$table" out socket cgroupv2 level $level "\"$group\"" drop 2>/dev/null || true
    done
    nft list table inet "$table" | grep -q drop
}

heal() { nft delete table inet "$table"; }

remount() {
    for _ in 1 2 3 4; do grep -qF " $D/m3 fuse" /proc/mounts || break; umount -l "$D/m3"; done
    local pids
    pids=$(ours "$D"/run/client.h3.pid)
    if [ -n "$pids" ]; then
        # shellcheck disable=SC2086
        kill -KILL $pids
        # shellcheck disable=SC2086
        wait_gone $pids
    fi
    mount_client 3
}

case $command in
start | stop | cut | heal | remount) "$command" ;;
*) echo "usage: $0 start|stop|cut|heal|remount DIR" >&2; exit 2 ;;
esac
