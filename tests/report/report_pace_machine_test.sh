#!/bin/bash
# report: a replay that could not keep the app's pace because its threads waited for CPUs
# that other processes held says the machine held the replayer back, not the target. fio's
# io_uring trace replayed while CI builds held both cores read "the application could not
# keep its original pace ... (target slower than the app's pace)": its worker, runnable but
# not running, was neither busy on a CPU (replay.worker_busy_max) nor fed late
# (replay.items_late). The result's meta replay.worker_runq_max (the worst worker's share of
# its time waiting for a CPU), replay.dispatch_runq (the dispatcher's) and
# replay.cpu_ns.others (other processes' CPU time) tell. One thread of preads 1 ms apart,
# each taking 1.5 ms in the replay (a backlog p99 of ~495 ms over a 1.5 s span), 2 CPUs:
#  - machine: a worker waiting 80% of its time, others 90% busy: "held back by the machine",
#    the summary's "(the replayer, held back by other processes, ...)", JSON
#    replayer_limit_cause "other_processes";
#  - dispatcher: 30% of the items late and the dispatcher waiting 70% of its time, others
#    90% busy: the machine too, the dispatcher named (not "dispatched slower than its pace");
#  - own: a worker waiting 60% of its time, others 5% busy: its threads waited for one
#    another, the replayer's own limit ("own_threads");
#  - cpu: a worker on a CPU 97% of its time: bound by the CPU ("worker_cpu"), as before;
#  - small (10%), short (30%: 450 ms of waits, less than the backlog), unknown (no
#    replay.cpu_ns.others) and older (no replay.worker_runq_max): the target, as before.
# usage: report_pace_machine_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup pace-machine "$@"

n=1000
span=$((1000 + (n - 1) * 1501 + 1500)) # us: the replay's last op ends there
{
	echo "100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3"
	for i in $(seq 0 $((n - 1))); do
		s=$((1000 + i * 1000))
		echo "100 100 $s $((s + 20)) pread64 fd=3 path=/db/data off=$((i * 4096)) len=4096 ret=4096"
	done
} >"$T/o.txt"

# name:worker_runq_max:dispatch_runq:others (% of 2 CPUs):items_late:worker_busy_max:cause
for case in machine:0.80:0.05:90:0:0.15:other_processes \
	dispatcher:0.10:0.70:90:300:0.15:other_processes \
	own:0.60:0.05:5:0:0.35:own_threads \
	cpu:0.02:0.05:5:0:0.97:worker_cpu \
	small:0.10:0.05:90:0:0.15:None \
	short:0.30:0.05:90:0:0.15:None \
	unknown:0.80:0.05:none:0:0.15:None \
	older:none:none:90:0:0.15:None; do
	IFS=: read -r name runq disp others late busy want <<<"$case"
	{
		echo "meta replay.of $T/o.reel"
		echo "meta replay.targets /dev/shm/lim"
		echo "meta replay.engine sync"
		echo "meta replay.timing original"
		echo "meta replay.cpus 2"
		echo "meta replay.worker_busy_max $busy"
		echo "meta replay.items_late $late"
		echo "meta replay.items_late_ns $((late * 2000000))"
		[ "$runq" = none ] || echo "meta replay.worker_runq_max $runq"
		[ "$disp" = none ] || echo "meta replay.dispatch_runq $disp"
		[ "$others" = none ] ||
			echo "meta replay.cpu_ns.others $((span * 1000 * 2 * others / 100))"
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
	read -r lim cause < <(python3 -c 'import json, sys
l = json.load(open(sys.argv[1]))["runs"][1]["lateness"]
print(l["replayer_limit"], l["replayer_limit_cause"])' "$T/r.json")
	grep -q "PACE NOT KEPT" "$T/out" || { cat "$T/out"; echo "FAIL ($name): pace kept"; exit 1; }
	[ "$cause" = "$want" ] || { cat "$T/out"; echo "FAIL ($name): JSON cause $cause, want $want"; exit 1; }
	[ "$lim" = "$([ "$want" = None ] && echo False || echo True)" ] ||
		{ echo "FAIL ($name): JSON replayer_limit $lim"; exit 1; }
	case $name in
	machine | dispatcher)
		who=$([ $name = machine ] && echo "the worker that waited most" ||
			echo "the dispatcher, which fed the workers late")
		pct=$([ $name = machine ] && echo 80 || echo 70)
		grep -q "the replayer was held back by the machine, not the target: its threads waited for a CPU $pct% of the time while other processes kept the machine's 2 CPUs 90% busy; $who waited " "$T/out" &&
			grep -q "waiting for the previous op (the replayer, held back by other processes, slower than the app's pace)" "$T/out" &&
			! grep -q "dispatched slower than its pace" "$T/out" ||
			{ cat "$T/out"; echo "FAIL ($name): the machine not named"; exit 1; }
		;;
	own)
		grep -q "the replayer was the limit, not the target: its threads waited for a CPU 60% of the time, for one another, while other processes kept the machine's 2 CPUs only 5% busy" "$T/out" &&
			grep -q "(the replayer slower than the app's pace)" "$T/out" ||
			{ cat "$T/out"; echo "FAIL ($name): its own threads not named"; exit 1; }
		;;
	cpu)
		grep -q "the replayer was the limit, not the target: its busiest worker thread was on a CPU 97% of its time" "$T/out" ||
			{ cat "$T/out"; echo "FAIL ($name): the busy worker not named"; exit 1; }
		;;
	*)
		grep -q "(target slower than the app's pace)" "$T/out" &&
			grep -q "the application could not keep its original pace" "$T/out" &&
			! grep -q "waited for a CPU" "$T/out" ||
			{ cat "$T/out"; echo "FAIL ($name): the replayer blamed"; exit 1; }
		;;
	esac
	echo "$name: ok"
done
echo PASS
