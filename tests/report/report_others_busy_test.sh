#!/bin/bash
# report: a replay that fell behind while other processes kept the machine's CPUs busy says
# so (result meta replay.cpu_ns.others): its threads waited for a CPU, and the wake-up
# lateness is largely that work's. dovecot replayed on tmpfs beside other jobs (load average
# 11 on 2 CPUs) fell behind by 2 s at p99 with the verdict "the replayer woke up late" and no
# word of why. One thread of preads 1 ms apart, each started 3 ms late: with others at 75 % of
# 2 CPUs over the span the note is there; at 10 %, or with no such meta (older results), not.
# usage: report_others_busy_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup others-busy "$@"

for others in 75 10 none; do
	{
		echo "100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3"
		for i in $(seq 0 499); do
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
		# the span: 0 .. 503020 us; others' CPU time as a share of 2 CPUs over it
		[ "$others" = none ] ||
			echo "meta replay.cpu_ns.others $((503020 * 1000 * 2 * others / 100))"
		echo "100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3 sched=0"
		for i in $(seq 0 499); do
			s=$((1000 + i * 1000))
			echo "100 100 $((s + 3000)) $((s + 3020)) pread64 fd=3 path=/db/data off=$((i * 4096)) len=4096 ret=4096 sched=$s"
		done
	} >"$T/r.txt"
	mk_pair
	"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || { cat "$T/out"; exit 1; }
	grep -q "FELL BEHIND" "$T/out" || { cat "$T/out"; echo "FAIL ($others): not behind"; exit 1; }
	note=$(grep "other processes kept the machine's 2 CPUs" "$T/out")
	if [ "$others" = 75 ]; then
		[ -n "$note" ] || { cat "$T/out"; echo "FAIL: no note of the busy machine"; exit 1; }
		echo "$note" | grep -q "CPUs 75% busy" || { echo "FAIL: $note"; exit 1; }
	elif [ -n "$note" ]; then
		echo "FAIL ($others): $note"
		exit 1
	fi
done
echo PASS
