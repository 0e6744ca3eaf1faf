#!/bin/bash
# report: a replay that fell behind while other processes kept the machine's CPUs busy says
# so (result meta replay.cpu_ns.others): its threads waited for a CPU, and the wake-up
# lateness is largely that work's. dovecot replayed on tmpfs beside other jobs (load average
# 11 on 2 CPUs) fell behind by 2 s at p99 with the verdict "the replayer woke up late" and no
# word of why. One thread of preads 1 ms apart, each started 3 ms late: with others at 75 % of
# 2 CPUs over the span the note is there; at 10 %, or with no such meta (older results), not;
# nor over half a second (/proc/stat's 10 ms ticks: a 46 ms replay read "142% busy"), and
# the share said is at most 100 %.
# usage: report_others_busy_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup others-busy "$@"

for case in 75:1000 10:1000 none:1000 75:500 150:1000; do
	others=${case%:*} n=${case#*:}
	span=$((n * 1000 + 3020)) # us
	{
		echo "100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3"
		for i in $(seq 0 $((n - 1))); do
			s=$((1000 + i * 1000))
			echo "100 100 $s $((s + 20)) pread64 fd=3 path=/db/data off=$((i * 4096)) len=4096 ret=4096"
		done
	} >"$T/o.txt"
	{
		echo "meta replay.of $T/o.reel"
		echo "meta replay.targets /dev/shm/busy"
		echo "meta replay.engine sync"
		echo "meta replay.timing original"
		echo "meta replay.cpus 2"
		# others' CPU time as a share of 2 CPUs over the span
		[ "$others" = none ] ||
			echo "meta replay.cpu_ns.others $((span * 1000 * 2 * others / 100))"
		echo "100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3 sched=0"
		for i in $(seq 0 $((n - 1))); do
			s=$((1000 + i * 1000))
			echo "100 100 $((s + 3000)) $((s + 3020)) pread64 fd=3 path=/db/data off=$((i * 4096)) len=4096 ret=4096 sched=$s"
		done
	} >"$T/r.txt"
	mk_pair
	"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || { cat "$T/out"; exit 1; }
	grep -q "FELL BEHIND" "$T/out" || { cat "$T/out"; echo "FAIL ($case): not behind"; exit 1; }
	note=$(grep "other processes (or the hypervisor's other guests) kept the machine's 2 CPUs" "$T/out")
	if [ "$case" = 75:1000 ] || [ "$case" = 150:1000 ]; then
		[ -n "$note" ] || { cat "$T/out"; echo "FAIL ($case): no note of the busy machine"; exit 1; }
		want=$([ "$others" = 75 ] && echo 75 || echo 100)
		echo "$note" | grep -q "CPUs $want% busy" || { echo "FAIL ($case): $note"; exit 1; }
	elif [ -n "$note" ]; then
		echo "FAIL ($case): $note"
		exit 1
	fi
done
echo PASS
