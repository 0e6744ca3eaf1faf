#!/bin/bash
# report: an op type with too few ops for its distribution to be compared, that held much of
# the I/O time, is still said (dd conv=fsync: its one fsync, 69% of the original's I/O time,
# went unsaid, and the verdict's only data line was "write 2.17x slower": a RAM disk that
# made dd 1.6x faster read as a slowdown); and every replay has its bottom line, I/O time
# and duration against the original's.
# usage: report_few_dominant_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup few-dominant "$@"

{
	echo "100 100 0 10 openat path=/d/out flags=O_WRONLY|O_CREAT ret=3"
	for i in $(seq 0 19); do
		s=$((100 + i * 300))
		echo "100 100 $s $((s + 200)) write fd=3 off=$((i * 1048576)) len=1048576 ret=1048576"
	done
	echo "100 100 6100 36100 fsync fd=3 ret=0"
} >"$T/o.txt"
{
	echo "meta replay.of $T/o.reel"
	echo "meta replay.targets /dev/shm/few"
	echo "meta replay.engine sync"
	echo "meta replay.timing think"
	echo "100 100 0 10 openat path=/d/out flags=O_WRONLY|O_CREAT ret=3 sched=0"
	for i in $(seq 0 19); do
		s=$((100 + i * 500))
		echo "100 100 $s $((s + 400)) write fd=3 off=$((i * 1048576)) len=1048576 ret=1048576 sched=$s"
	done
	echo "100 100 10100 10101 fsync fd=3 ret=0 sched=10100"
} >"$T/r.txt"
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || { cat "$T/out"; exit 1; }
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/out.json" || exit 1
v=$(sed -n '/^verdict:/,$p' "$T/out")
# the fsync: 30 ms -> 1 us, 1 op each, 30.0 of 34.01 ms of the original's I/O time
echo "$v" | grep -q "fsync on /dev/shm/few: 1.00 µs an op against the original's 30.0 ms (30000× faster), 1 and 1 ops: too few for a distribution, but 88% of the original's I/O time and 0% of the replay's" ||
	{ echo "$v"; echo "FAIL: no line on the fsync"; exit 1; }
# I/O time: 20 x 200 us + 30 ms + 10 us = 34.01 ms; replay 20 x 400 us + 1 us + 10 us
echo "$v" | grep -q "on /dev/shm/few: I/O time 8.01 ms against the original's 34.0 ms (0.24×); the run took 10.1 ms against 36.1 ms (0.28×)" ||
	{ echo "$v"; echo "FAIL: no bottom line"; exit 1; }
python3 - "$T/out.json" <<'PY' || exit 1
import json, sys
v = json.load(open(sys.argv[1]))["verdict"]
tags = [x["tag"] for x in v]
few = [x for x in v if x["op"] == "fsync"]
if "total" not in tags or not few or few[0]["tag"] != "faster" or abs(few[0]["speedup"] - 30000) > 1:
    print("FAIL: JSON verdict", v)
    sys.exit(1)
PY
echo PASS
