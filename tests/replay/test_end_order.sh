#!/bin/bash
# A recorder writes ops in end order: an op that took long comes after everything that ended
# before it. The replay still issues it at its recorded start: here a 200 ms fsync that
# started at 1 ms is written after another thread's 3000 reads; its lateness must stay small
# (the dispatcher reads far enough ahead of the schedule).
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 5 openat path=/d/a flags=O_RDWR ret=3"
	echo "100 101 0 5 openat path=/d/b flags=O_RDONLY ret=4"
	for i in $(seq 0 2999); do
		s=$((10 + i * 60))
		echo "100 101 $s $((s + 5)) pread64 fd=4 off=$(((i % 64) * 4096)) len=4096 ret=4096"
	done
	echo "100 100 1000 201000 fsync fd=3 ret=0"
	echo "100 100 201100 201110 close fd=3 ret=0"
	echo "100 101 201100 201110 close fd=4 ret=0"
} | mk t
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" -q || fail "replay"
late=$("$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
for o in map(json.loads, sys.stdin):
    if o["op"] == "fsync":
        print((o["start_ns"] - o["sched_ns"]) // 1000)')
[ -n "$late" ] && [ "$late" -lt 50000 ] || fail "fsync started ${late} µs after its schedule"
echo PASS
