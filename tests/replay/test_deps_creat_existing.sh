#!/bin/bash
# open(O_CREAT) of a file that is there creates nothing, and is ordered as a plain open:
# Redis opens its log with fopen("a") for every line, from the main thread and from each
# forked child. Thread 100 opens /d/log, then spends 300 ms (as recorded) in a write of
# /d/aof, then opens /d/log again; process 200 opens /d/log at 150 ms. As a closed loop
# (think), thread 100's write takes microseconds and its second open is due at once: it must
# not wait the 150 ms until process 200's open is due (it did: every O_CREAT open was ordered
# after the other threads' uses of the name). Where another thread unlinks the name first
# (/d/x), the O_CREAT open that follows it still waits for the unlink.
source "$(dirname "$0")/lib.sh"

{
	# in trace order (start times)
	echo "100 100 0 5 stat path=/d/log ret=0"
	echo "100 100 10 20 openat path=/d/log flags=O_WRONLY|O_CREAT|O_APPEND mode=0644 ret=3"
	echo "100 100 30 40 close fd=3 ret=0"
	echo "100 100 50 60 stat path=/d/x ret=0"
	echo "100 100 70 80 openat path=/d/aof flags=O_WRONLY ret=4"
	echo "100 100 100 300100 pwrite64 fd=4 off=0 len=100 ret=100"
	echo "200 200 150000 150010 openat path=/d/log flags=O_WRONLY|O_CREAT|O_APPEND mode=0644 ret=3"
	echo "200 200 150020 150030 close fd=3 ret=0"
	echo "200 200 150040 150050 unlink path=/d/x ret=0"
	echo "100 100 300200 300210 openat path=/d/log flags=O_WRONLY|O_CREAT|O_APPEND mode=0644 ret=3"
	echo "100 100 300220 300230 close fd=3 ret=0"
	echo "100 100 300300 300310 openat path=/d/x flags=O_WRONLY|O_CREAT|O_APPEND mode=0644 ret=3"
	echo "100 100 300320 300330 close fd=3 ret=0"
} | mk t
replay_as_traced think "O_CREAT opens of an existing name"
"$IOREEL" dump "$T/r.reel" --format csv | python3 -c '
import csv, sys
ops = list(csv.DictReader(sys.stdin))
opens = [o for o in ops if o["op"] == "openat" and o["tid"] == "100"]
log2, x2 = opens[2], opens[3]
assert log2["path"].endswith("/d/log") and x2["path"].endswith("/d/x"), opens
late = (int(log2["start_ns"]) - int(log2["sched_ns"])) / 1e6
if late > 50:
	sys.exit("second open of /d/log started %.1f ms late: it waited for process 200" % late)
unl = [o for o in ops if o["op"] == "unlink"][0]
if int(x2["start_ns"]) < int(unl["end_ns"]):
	sys.exit("O_CREAT open of /d/x ran before the unlink of it that came first")
' || fail "think: O_CREAT of an existing name ordered wrongly"
echo PASS
