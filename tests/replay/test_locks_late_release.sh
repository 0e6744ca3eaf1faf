#!/bin/bash
# A release whose return the recorder saw late: A lets go of its flock, is preempted before
# its syscall's exit probe, and B, woken, has its whole turn (take, write, release) first, so
# the trace has B's turn before A's release. A release that was under way when B's wait
# ended may be what ended it: it must not wait for what B did after that wait (B's take waits
# in the kernel for A's release, A's release for B's: the replay stood still 1 s, then gave
# the take up; once in CI, capture test locks_turns on a loaded machine).
source "$(dirname "$0")/lib.sh"

# the trace, with LOCK=take and UNLOCK=release ops
trace() {
	mk t <<SPEC
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
200 200 150 160 openat fd=-100 path=/d/f flags=O_RDWR ret=5
100 100 200 201 $1 ret=0
200 200 300 5004 $1 ret=0
200 200 5100 5200 pwrite64 fd=5 path=/d/f off=0 len=4096 ret=4096
200 200 5300 5305 $2 ret=0
100 100 5000 9000 $2 ret=0
100 100 9100 9105 $1 ret=0
100 100 9200 9205 $2 ret=0
100 100 9300 9310 close fd=5 path=/d/f ret=0
200 200 9300 9310 close fd=5 path=/d/f ret=0
SPEC
}

# flock: LOCK_EX 2, LOCK_UN 8; fcntl: F_SETLK 6, F_SETLKW 7, F_WRLCK 1, F_UNLCK 2
for kind in flock fcntl; do
	if [ $kind = flock ]; then
		trace "flock fd=5 path=/d/f mode=2" "flock fd=5 path=/d/f mode=8"
	else
		trace "fcntl_lock fd=5 path=/d/f flags=7 mode=1 off=0 len=0" \
			"fcntl_lock fd=5 path=/d/f flags=6 mode=2 off=0 len=0"
	fi
	for timing in original think afap; do
		start=$(date +%s%N)
		replay_as_traced $timing "$kind: a lock request met another state of the lock than the original's"
		took=$((($(date +%s%N) - start) / 1000000))
		grep -q "lock requests waited past their time" "$T/out" && fail "$kind, $timing: a wait given up"
		read -r w < <("$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
ops = [o for o in map(json.loads, sys.stdin) if o["pid"] == 200 and o["op"] in ("flock", "fcntl_lock")]
print((ops[0]["end_ns"] - ops[0]["start_ns"]) // 1000)')
		echo "$kind, $timing: B's take waited $w us (original 4704), the replay took $took ms"
		# granted by A's release, not given up after 1 s
		[ "$w" -lt 500000 ] || fail "$kind, $timing: B's take waited $w us"
	done
done
echo PASS
