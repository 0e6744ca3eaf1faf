#!/bin/bash
# report: a replay's first op is scheduled at 0 (sched_ns is relative to the replay's start),
# and is a replayed op all the same. It was taken for an unscheduled one: no lateness, and
# no busy time for its thread, so when that first op (an fsync) was slow on the target, the
# ops queued behind it were said to be the replayer's late wake-ups ("fell behind ... its
# latencies are doubtful") instead of the target's backlog ("could not keep its pace").
# usage: report_first_op_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup first-op "$@"

{
	echo "100 100 0 10 fsync fd=3 path=/db/data ret=0"
	for i in $(seq 1 20); do
		s=$((i * 1000))
		echo "100 100 $s $((s + 20)) pread64 fd=3 path=/db/data off=0 len=4096 ret=4096"
	done
} >"$T/o.txt"
{
	echo "meta replay.of $T/o.reel"
	echo "meta replay.targets /dev/shm/first-op"
	echo "meta replay.engine sync"
	echo "meta replay.timing original"
	# the fsync takes 50 ms on the target; each pread starts as soon as the one before ends
	echo "100 100 0 50000 fsync fd=3 path=/db/data ret=0 sched=0"
	for i in $(seq 1 20); do
		s=$((50000 + i * 25))
		echo "100 100 $s $((s + 20)) pread64 fd=3 path=/db/data off=0 len=4096 ret=4096 sched=$((i * 1000))"
	done
} >"$T/r.txt"
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || { cat "$T/out"; exit 1; }
grep -q "PACE NOT KEPT" "$T/out" && grep -q "could not keep its original pace" "$T/out" &&
	! grep -q "FELL BEHIND" "$T/out" || {
	cat "$T/out"
	echo "FAIL: the backlog behind the slow first op is not the target's"
	exit 1
}
# 21 scheduled ops, the fsync on time: 20 of 21 more than 1 ms late
grep -q "95.24% of ops > 1 ms late" "$T/out" || { grep lateness "$T/out"; echo "FAIL: the first op is not counted"; exit 1; }
echo PASS
