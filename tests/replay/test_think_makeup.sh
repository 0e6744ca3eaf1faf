#!/bin/bash
# --timing think keeps each thread's think time in all: a late wake-up (a sleep's overshoot,
# ~40-60 µs on this kind of VM) is made up from the gaps after it. Before, each op's
# overshoot added to the run: 1,000 writes 1 ms apart, replayed on tmpfs where they cost
# what they cost in the original, ran 6% long, and a think replay's duration, what it is
# for, read as a slowdown the storage did not make. Here: within 1.5% of the original's.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 10 openat path=/d/f flags=O_WRONLY|O_CREAT ret=3"
	for i in $(seq 1 1000); do
		s=$((i * 1000))
		echo "100 100 $s $((s + 5)) pwrite64 fd=3 off=$(((i % 16) * 4096)) len=4096 ret=4096"
	done
} | mk t
"$IOREEL" replay "$T/t.reel" --target "/dev/shm/ioreel-think-makeup.$$" -T think -o "$T/r.reel" \
	>"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
rm -rf "/dev/shm/ioreel-think-makeup.$$"
dur() { "$IOREEL" info --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["duration_ns"])'; }
o=$(dur "$T/t.reel") r=$(dur "$T/r.reel")
python3 - "$o" "$r" <<'PY' || fail "think replay $r ns against the original's $o ns: $(grep -E 'duration|lateness \(' "$T/out")"
import sys
o, r = map(int, sys.argv[1:])
print("original %.1f ms, think replay %.1f ms (%.2f%%)" % (o / 1e6, r / 1e6, 100.0 * (r - o) / o))
sys.exit(0 if abs(r - o) <= 0.015 * o else 1)
PY
echo PASS
