#!/bin/bash
# report: a replay that could not keep the app's pace because the replayer was the limit says
# so, and does not blame the target. A fio io_uring trace replayed on the tmpfs it was
# recorded on read "PACE NOT KEPT ... waiting for the previous op (target slower than the
# app's pace)", while its dispatcher fed the workers at half the pace. The result's meta says
# what the replay measured of itself: replay.items_late (ops whose item reached their worker
# after they were due, the dispatcher behind) and replay.worker_busy_max (the busiest
# worker's share of its time on a CPU). One thread of preads 1 ms apart, each taking 1.5 ms
# in the replay (a backlog up to ~1 s):
#  - busy 0.97: "the replayer was the limit, not the target", its busiest worker named;
#  - items late, 300 of 1000 ops: the same, the ops that reached their worker late named;
#  - busy 0.30 and 5 items late (and no such meta, older results): the target, as before.
# Text (verdict and the runs' summary) and JSON (lateness.replayer_limit).
# usage: report_pace_replayer_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup pace-replayer "$@"

n=1000
for case in busy:0.97:0 late:0.30:300 target:0.30:5 older:none:none; do
	IFS=: read -r name busy late <<<"$case"
	{
		echo "100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3"
		for i in $(seq 0 $((n - 1))); do
			s=$((1000 + i * 1000))
			echo "100 100 $s $((s + 20)) pread64 fd=3 path=/db/data off=$((i * 4096)) len=4096 ret=4096"
		done
	} >"$T/o.txt"
	{
		echo "meta replay.of $T/o.reel"
		echo "meta replay.targets /dev/shm/lim"
		echo "meta replay.engine sync"
		echo "meta replay.timing original"
		if [ "$busy" != none ]; then
			echo "meta replay.worker_busy_max $busy"
			echo "meta replay.items_late $late"
			echo "meta replay.items_late_ns $((late * 2000000))"
		fi
		echo "100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3 sched=0"
		free=0
		for i in $(seq 0 $((n - 1))); do
			s=$((1000 + i * 1000))
			st=$((s > free ? s : free))
			echo "100 100 $st $((st + 1500)) pread64 fd=3 path=/db/data off=$((i * 4096)) len=4096 ret=4096 sched=$s"
			free=$((st + 1500 + 1))
		done
	} >"$T/r.txt"
	mk_pair
	"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || { cat "$T/out"; exit 1; }
	"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/r.json" || exit 1
	lim=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["runs"][1]["lateness"]["replayer_limit"])' "$T/r.json")
	grep -q "PACE NOT KEPT" "$T/out" || { cat "$T/out"; echo "FAIL ($name): pace kept"; exit 1; }
	case $name in
	busy | late)
		[ "$lim" = True ] || { echo "FAIL ($name): JSON replayer_limit $lim"; exit 1; }
		grep -q "waiting for the previous op (the replayer slower than the app's pace)" "$T/out" &&
			grep -q "the replayer was the limit, not the target" "$T/out" ||
			{ cat "$T/out"; echo "FAIL ($name): the target blamed"; exit 1; }
		want=$([ $name = busy ] && echo "busiest worker thread was on a CPU 97% of its time" ||
			echo "300 ops (30.0%) reached their worker after they were due, 2.00 ms late")
		grep -q "$want" "$T/out" || { cat "$T/out"; echo "FAIL ($name): no '$want'"; exit 1; }
		;;
	*)
		[ "$lim" = False ] || { echo "FAIL ($name): JSON replayer_limit $lim"; exit 1; }
		grep -q "(target slower than the app's pace)" "$T/out" &&
			grep -q "the application could not keep its original pace" "$T/out" &&
			! grep -q "replayer was the limit" "$T/out" ||
			{ cat "$T/out"; echo "FAIL ($name): the replayer blamed"; exit 1; }
		;;
	esac
	echo "$name: ok"
done
echo PASS
