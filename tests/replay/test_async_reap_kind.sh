#!/bin/bash
# A completion record whose own request has not completed takes another that has (test
# async_reap_any), but only one of its kind: an application that reaps a read waits for
# that read's data, not for whichever write of the same length finished. Here, 20 times,
# write Q (1 MiB, to the page cache: done as it is submitted) and read R (1 MiB the trace
# dropped from the page cache: from the disk) are in flight together, and the trace reaps R
# first. R's record must wait for R, never take Q (before, a fio randrw replay had 28,015 read
# records filled by writes). Every record names its own request then.
source "$(dirname "$0")/lib.sh"

MiB=1048576
{
	echo "100 100 0 1 openat path=/d/f flags=O_RDWR ret=3"
	echo "100 100 10 11 pread64 fd=3 path=/d/f off=$((40 * MiB)) len=$MiB ret=$MiB"
	echo "100 100 20 30 fadvise64 fd=3 path=/d/f off=$((8 * MiB)) len=$((20 * MiB)) mode=4 ret=0"
	for i in $(seq 0 19); do
		t=$((100 + 1000 * i)) q=$((2 * i + 2)) r=$((2 * i + 1)) off=$(((8 + i) * MiB))
		echo "100 100 $t $t uring_submit fd=3 path=/d/f ctx=9 subop=23 len=$MiB aux=$q off=$((40 * MiB)) ret=1"
		echo "100 100 $((t + 1)) $((t + 1)) uring_submit fd=3 path=/d/f ctx=9 subop=22 len=$MiB aux=$r off=$off ret=1"
		echo "100 100 $((t + 1)) $((t + 2)) uring_complete fd=3 path=/d/f ctx=9 subop=22 len=$MiB aux=$r off=$off ret=$MiB"
		echo "100 100 $t $((t + 3)) uring_complete fd=3 path=/d/f ctx=9 subop=23 len=$MiB aux=$q off=$((40 * MiB)) ret=$MiB"
	done
	echo "100 100 30100 30101 close fd=3 ret=0"
} | mk t
for timing in original afap; do
	replay_as_traced $timing "timing $timing: outcomes differ"
	"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
	python3 - "$T/r.jsonl" <<'PY' || fail "timing $timing: a read's record took a write"
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
com = [o for o in ops if o["op"] == "uring_complete"]
assert len(com) == 40, len(com)
# a record takes a request of its own kind only: every read's record names a read (odd id)
swapped = sum(1 for i in range(20) if com[2 * i]["aux"] % 2 == 0)
print(f"{swapped} of 20 read records named a write")
sys.exit(1 if swapped else 0)
PY
done
echo PASS
