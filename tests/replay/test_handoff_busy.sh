#!/bin/bash
# A worker whose thread has ended is handed on to a new thread only once it has done its
# queue: process 100 writes 16 x 16 MiB due 1 µs apart (a backlog of tens of ms on any
# target), and has ended in the trace when process 200 starts, at 1 ms. Handed the same
# worker, process 200 waited for all of process 100's backlog (~0.5 s here; also when the
# worker of process 100's other thread was handed on with the process's end still to do,
# which waits for the backlog), and the report
# called that wait wake-up lateness (** FELL BEHIND **). It must start on time, on a worker
# of its own.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 1 openat path=/d/big flags=O_WRONLY|O_CREAT mode=0644 ret=3"
	for i in $(seq 0 15); do
		echo "100 100 $((2 + i)) $((3 + i)) pwrite64 fd=3 off=$((i * 16777216)) len=16777216 ret=16777216"
	done
	echo "100 100 20 21 close fd=3 ret=0"
	# a second thread: the process's end, queued to the thread that ends last, waits for
	# the first thread's backlog
	echo "100 101 22 23 stat path=/d/x ret=-ENOENT"
	echo "200 200 1000 1001 openat path=/d/small flags=O_WRONLY|O_CREAT mode=0644 ret=3"
	echo "200 200 1002 1003 pwrite64 fd=3 off=0 len=4096 ret=4096"
	echo "200 200 1004 1005 close fd=3 ret=0"
} | mk t
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "replayed by 3 threads" "$T/out" || { cat "$T/out"; fail "the two processes shared a worker"; }
"$IOREEL" dump "$T/r.reel" --format csv | python3 -c '
import csv, sys
ops = list(csv.DictReader(sys.stdin))
first = [o for o in ops if o["pid"] == "200"][0]
late = (int(first["start_ns"]) - int(first["sched_ns"])) / 1e6
big = [o for o in ops if o["pid"] == "100" and o["op"] == "pwrite64"]
backlog = (int(big[-1]["end_ns"]) - int(first["sched_ns"])) / 1e6
print("process 200 started %.2f ms late; process 100 was busy %.1f ms past that" % (late, backlog))
if backlog < 5:
	print("SKIP: no backlog to wait behind"); sys.exit(77)
if late > backlog / 2:
	sys.exit("process 200 started %.1f ms late, behind process 100s backlog" % late)
'
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "a new process waited for an ended one's backlog"
echo PASS
