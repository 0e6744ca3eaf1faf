#!/bin/bash
# With a schedule, the result writer looks for batches about once per batch the workers
# fill, not every 10 ms: each of two threads at 500 ops/s fills a 256-op batch every ~0.5 s,
# and a poll that finds nothing takes a CPU from a worker (with --spin and as
# many workers as cores, ~100 preemptions a second for nothing before). Counted with perf
# sched over a 3 s replay, by the replay's thread names (ioreel-w0, ioreel-w1,
# ioreel-writer) of this replay's process alone (perf sched records the whole machine, and
# ctest runs other replays beside it, with threads of the same names): the writer ran at most
# 60 times (~300 with a 10 ms poll), and every op's result was written.
source "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || { echo "SKIP: perf not installed"; exit 77; }
perf sched record -o "$T/probe.data" true >/dev/null 2>&1 ||
	{ echo "SKIP: perf sched record cannot trace here"; exit 77; }

"$GEN_TRACE" -o "$T/t.reel" -t 2 -r 1000 -d 3 -w 25 -s $((1 << 20)) --seed 3 >/dev/null ||
	fail "gen_trace"
# the shell execs the replay: its pid is the replay's
perf sched record -o "$T/sched.data" sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$T/pid" \
	"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing original -q -o "$T/r.reel" \
	>"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
pid=$(cat "$T/pid")
# a task shows as name[tid/pid], or name[pid] for the process's first thread
perf sched timehist -i "$T/sched.data" 2>/dev/null |
	awk -v pid="$pid" 'NR > 3 && ($3 ~ "\\[" pid "\\]$" || $3 ~ "/" pid "\\]$") { print $3 }' |
	sed 's/\[.*//' | sort | uniq -c >"$T/runs"
cat "$T/runs"
for name in ioreel-w0 ioreel-w1 ioreel-writer; do
	grep -q " $name\$" "$T/runs" || fail "no thread named $name ran"
done
n=$(awk '$2 == "ioreel-writer" { print $1 }' "$T/runs")
[ "$n" -le 60 ] || fail "the writer ran $n times in a 3 s replay of ~12 result batches"
echo PASS
