#!/bin/bash
# As fast as possible, with no more threads in the trace than CPUs the replayer may use, each
# worker runs pinned to a CPU of its own (replay_run.c, run__pin_plan): woken together at a
# segment's release, two workers were often placed on one CPU while the other idled. The
# result says so (replay.workers_pinned); not with a schedule to keep, nor with more threads
# than CPUs (taskset leaves it fewer), nor with the test knob that turns it off.
source "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null || exit 77
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "SKIP: one CPU: two threads cannot each have one" >&2; exit 77; }

"$GEN_TRACE" --mode afap -o "$T/t.reel" -t 2 -n 20000 -s $((4 << 20)) --seed 7 >/dev/null ||
	fail "gen_trace"
# pinned WHAT WANT TIMING CMD...: replays with --timing TIMING under CMD (env, taskset),
# checks the ops and replay.workers_pinned
pinned() {
	local what=$1 want=$2 timing=$3
	shift 3
	rm -f "$T/r.reel"
	"$@" "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing "$timing" -q \
		-o "$T/r.reel" >"$T/out" 2>&1 || fail "$what: replay: $(cat "$T/out")"
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	got=$("$IOREEL" info "$T/r.reel" | awk '$1 == "replay.workers_pinned" { print $2 }')
	[ "$got" = "$want" ] || fail "$what: replay.workers_pinned '$got', want $want"
	echo "$what: workers_pinned $got"
}
pinned "afap, 2 threads, $ncpu CPUs" 1 afap env
pinned "afap, the knob off" 0 afap env IOREEL_TEST_NO_PIN=1
pinned "afap, 2 threads, 1 CPU allowed" 0 afap taskset -c 0
pinned "original timing" 0 original env
echo PASS
