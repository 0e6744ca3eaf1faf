#!/bin/bash
# report: the verdict names the file that holds most of the dominant class's time only when it
# holds a fair share of it. fio writing through io_uring on registered files records its
# requests without a file (fd -1); its tiny write of its own JSON output was the only named
# one, and the verdict read "writes dominate the original's I/O time: 94% of 13.8 s, 0% of
# them in .../u_shm_sqpoll_w.json". Here 100 writes of 1 ms on fd 7, which the trace names no
# file for, and one of 10 us to /out/fio.json.
# usage: report_hot_unnamed_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup hot-unnamed "$@"

{
	t=0
	for i in $(seq 0 99); do
		echo "100 100 $t $((t + 1000)) pwrite64 fd=7 off=$((i * 4096)) len=4096 ret=4096"
		t=$((t + 1100))
	done
	echo "100 100 $t $((t + 5)) openat path=/out/fio.json flags=O_WRONLY|O_CREAT mode=0644 ret=3"
	echo "100 100 $((t + 10)) $((t + 20)) write fd=3 path=/out/fio.json len=100 ret=100"
} >"$T/o.txt"
{
	echo "meta replay.of $T/o.reel"
	echo "meta replay.engine sync"
	echo "meta replay.targets /dev/shm/t"
	echo "meta replay.timing original"
	sed 's/$/ sched=0/' "$T/o.txt" | awk '{ $3 = $3; $4 = $3 + int(($4 - $3) / 2) + 1; print }'
} >"$T/r.txt"
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || exit 1
v=$(grep "dominate the original" "$T/out")
echo "$v"
echo "$v" | grep -q "writes dominate the original's I/O time: 100% of 100 ms, most of them on no file the trace names" ||
	{ echo "FAIL: want the dominant class without a file of 0% named"; exit 1; }
echo PASS
