#!/bin/bash
# --timing think starts a forked process's first op as long after its fork was done in the
# replay as it was in the original, not at its original time: process 100 spends 200 ms of
# the original in 20 writes of 10 ms each (back to back), then forks 200, whose first op came
# 1 ms after the fork. On tmpfs the writes take microseconds, so the fork is done within a
# few ms, and process 200 must start about 1 ms later, not at 201 ms: the run of a parent
# that faster storage sped up is shorter for its children too. Its own gaps stay as they
# were (its second op 50 ms after its first). A process without a fork in the trace (300)
# keeps its original time.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 1 openat path=/d/p flags=O_WRONLY|O_CREAT mode=0644 ret=3"
	for i in $(seq 0 19); do
		echo "100 100 $((2 + i * 10000)) $((10002 + i * 10000)) pwrite64 fd=3 off=$((i * 4096)) len=4096 ret=4096"
	done
	echo "100 100 200010 200020 fork ret=200"
	echo "200 200 201020 201030 openat path=/d/c flags=O_WRONLY|O_CREAT mode=0644 ret=4"
	echo "200 200 251030 251040 pwrite64 fd=4 off=0 len=4096 ret=4096"
	echo "200 200 251050 251060 close fd=4 ret=0"
	echo "200 200 251070 251070 exit ret=0"
	echo "300 300 210000 210010 stat path=/d/p ret=0"
	echo "100 100 300000 300010 close fd=3 ret=0"
	echo "100 100 300020 300020 exit ret=0"
} | mk t
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing think -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || { cat "$T/out"; fail "outcomes differ"; }
"$IOREEL" dump "$T/r.reel" --format csv | python3 -c '
import csv, sys
ops = list(csv.DictReader(sys.stdin))
ms = lambda o, k: int(o[k]) / 1e6
fork = [o for o in ops if o["op"] == "fork"][0]
c = [o for o in ops if o["pid"] == "200"]
s300 = [o for o in ops if o["pid"] == "300"][0]
print("fork done at %.2f ms; child first op %.2f ms, second %.2f ms; process 300 at %.2f ms"
      % (ms(fork, "end_ns"), ms(c[0], "start_ns"), ms(c[1], "start_ns"), ms(s300, "start_ns")))
if ms(fork, "end_ns") > 150:
	print("SKIP: the parent was not faster than recorded"); sys.exit(77)
first = ms(c[0], "start_ns") - ms(fork, "end_ns")
if not 0.5 <= first < 30:
	sys.exit("the child began %.2f ms after its fork, want ~1 ms" % first)
gap = ms(c[1], "start_ns") - ms(c[0], "end_ns")
if not 45 <= gap < 80:
	sys.exit("the child kept a gap of %.2f ms, want 50" % gap)
if ms(s300, "start_ns") < 205:
	sys.exit("process 300 (no fork) started at %.2f ms, want its original 210" % ms(s300, "start_ns"))
'
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "think timing of a forked process"
echo PASS
