#!/bin/bash
# A request that completes while its thread is away (here waiting for its completion
# record's time, 30 ms on) is measured to when it completed, not to when the thread came
# back: the context's reaper takes it as it comes. The thread takes the completions its
# submission brought itself (a read of cached pages completes in it) and so wakes the
# parked reaper only for a request still in flight after them; waking it for none, this
# request was measured 30 ms long. 20 writes of 1 MiB (done by the kernel's workers, after
# their submission), each alone in flight: their median must be under 15 ms (measured to
# their records, all of them take 30 ms; a loaded disk may make a few of them truly slow).
source "$(dirname "$0")/lib.sh"

M=1048576
{
	echo "100 100 0 1 openat path=/d/a flags=O_RDWR ret=3"
	echo "100 100 2 3 pread64 fd=3 path=/d/a off=$((31 * M)) len=$M ret=$M"
	for i in $(seq 0 19); do
		t=$((100 + 50000 * i))
		echo "100 100 $t $t uring_submit fd=3 ctx=0x77 aux=1 subop=23 off=$((i * M)) len=$M ret=1"
		echo "100 100 $t $((t + 30000)) uring_complete fd=3 ctx=0x77 aux=1 subop=23 off=$((i * M)) len=$M ret=$M"
	done
	echo "100 100 1000100 1000101 close fd=3 ret=0"
} | mk t
replay_as_traced original "outcomes differ"
"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
python3 - "$T/r.jsonl" <<'PY' || fail "a request measured to its record, not to its completion"
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
us = [(o["end_ns"] - o["start_ns"]) // 1000 for o in ops if o["op"] == "uring_complete"]
assert len(us) == 20, len(us)
print("1 MiB io_uring writes, completion records 30 ms on, measured (us):", sorted(us))
assert sorted(us)[len(us) // 2] < 15000, sorted(us)[len(us) // 2]
PY
echo PASS
