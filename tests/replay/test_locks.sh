#!/bin/bash
# File locks (format 1.3): two processes take turns on one file's locks, and the replay takes
# them in turn again. A request that waited 40 ms in the original for the other process's
# record lock (F_SETLKW) waits in the replay too, in its own latency, until the holder's
# replayed release; a non-blocking one (F_SETLK) made while the lock was held fails EAGAIN as the
# original's did, in every timing mode; flock the same. The replay's own lock calls are
# counted independently with strace: POSIX record locks go as F_OFD_* (the trace's
# processes are threads of one replayer there), flock as flock.
source "$(dirname "$0")/lib.sh"

# F_SETLK 6, F_SETLKW 7; F_RDLCK 0, F_WRLCK 1, F_UNLCK 2; LOCK_EX 2, LOCK_NB 4, LOCK_UN 8
mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
200 200 150 160 openat fd=-100 path=/d/f flags=O_RDWR ret=5
100 100 200 210 fcntl_lock fd=5 path=/d/f flags=6 mode=1 off=0 len=100 ret=0
200 200 5000 5010 fcntl_lock fd=5 path=/d/f flags=6 mode=0 off=50 len=1 ret=-EAGAIN
100 100 50200 50210 fcntl_lock fd=5 path=/d/f flags=6 mode=2 off=0 len=100 ret=0
200 200 10200 50230 fcntl_lock fd=5 path=/d/f flags=7 mode=1 off=10 len=10 ret=0
200 200 60000 60010 fcntl_lock fd=5 path=/d/f flags=6 mode=2 off=0 len=0 ret=0
100 100 70000 70010 flock fd=5 path=/d/f mode=2 ret=0
200 200 72000 72010 flock fd=5 path=/d/f mode=6 ret=-EAGAIN
100 100 90000 90010 flock fd=5 path=/d/f mode=8 ret=0
200 200 75000 90030 flock fd=5 path=/d/f mode=2 ret=0
200 200 95000 95010 flock fd=5 path=/d/f mode=8 ret=0
100 100 96000 96010 close fd=5 path=/d/f ret=0
200 200 96000 96010 close fd=5 path=/d/f ret=0
SPEC
# ns each blocking request took: fcntl_lock F_SETLKW, flock LOCK_EX of pid 200
waits() {
	"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["pid"] == 200 and o["ret"] == 0 and ((o["op"] == "fcntl_lock" and o["flags"] == 7)
                                            or (o["op"] == "flock" and o["mode"] == 2)):
        print(o["op"], o["end_ns"] - o["start_ns"])'
}
for timing in original think afap; do
	replay_as_traced $timing "a lock request met another state of the lock than the original's"
done
# original timing: the waits are the holder's hold, less the waiter's head start
replay_as_traced original "lock waits"
waits > "$T/waits"
read -r _ fw < <(grep fcntl_lock "$T/waits") || fail "no F_SETLKW in the result"
read -r _ lw < <(grep flock "$T/waits") || fail "no blocking flock in the result"
# 40 ms and 15 ms in the original; the VM's sleeps wake late, never early
[ "$fw" -ge 30000000 ] && [ "$fw" -le 140000000 ] || fail "F_SETLKW waited ${fw} ns, want ~40 ms"
[ "$lw" -ge 8000000 ] && [ "$lw" -le 115000000 ] || fail "flock waited ${lw} ns, want ~15 ms"
echo "waits: F_SETLKW $((fw / 1000)) us (original 40030), flock LOCK_EX $((lw / 1000)) us (original 15030)"

# independently: the replayer's own lock calls
if command -v strace >/dev/null; then
	rm -rf "$T/tgt"
	strace -f -qq -o "$T/st" -e trace=fcntl,flock "$IOREEL" replay "$T/t.reel" --target "$T/tgt" \
		--timing original -o "$T/r2.reel" > /dev/null 2>&1 || fail "replay under strace"
	ofd=$(grep -c 'F_OFD_SETLK' "$T/st")
	# less one: the replay's own lock on its target while it runs
	fl=$(($(grep -c 'flock(' "$T/st") - 1))
	posix=$(grep -cE 'F_SETLKW?,' "$T/st")
	# 5 record-lock requests and 5 flock ones, each one call: a blocking one is made once
	# its holder's release is done (its wait for that is its latency), so it does not block;
	# plus one flock: the refused LOCK_NB is first tried on its file opened again, which is
	# busy (replay_lock.c, lock__flock_free), so the request itself is made too
	[ "$ofd" = 5 ] && [ "$fl" = 6 ] && [ "$posix" = 0 ] ||
		fail "replayer's lock calls: $ofd F_OFD_SETLK*, $fl flock, $posix F_SETLK*: want 5, 6, 0"
fi
echo PASS
