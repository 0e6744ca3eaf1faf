#!/bin/bash
# As fast as possible, or spinning to the schedule all the way (--spin), with no more threads
# in the trace than CPUs the replayer may use, each worker runs pinned to a CPU of its own
# (replay_run.c, run__pin_plan): workers that never sleep were often placed on one CPU while
# the other idled (afap: at a segment's release; --spin: at the start, half the first 50 ops
# late by up to 4 ms in 3 replays of 10, none pinned). The result says so
# (replay.workers_pinned), and each worker's CPU list, read while it runs, is one CPU of its
# own; not with a schedule kept by sleeping (--spin=N sleeps first), nor with more threads
# than CPUs (taskset leaves it fewer), nor with the test knob that turns it off.
source "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null || exit 77
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "SKIP: one CPU: two threads cannot each have one" >&2; exit 77; }

"$GEN_TRACE" --mode afap -o "$T/t.reel" -t 2 -n 20000 -s $((4 << 20)) --seed 7 >/dev/null ||
	fail "gen_trace"
# pinned WHAT WANT "TIMING [ARGS]" CMD...: replays with --timing TIMING ARGS under CMD (env,
# taskset), checks the ops and replay.workers_pinned
pinned() {
	local what=$1 want=$2 timing=$3
	shift 3
	rm -f "$T/r.reel"
	# shellcheck disable=SC2086 # TIMING and the replay options after it
	"$@" "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $timing -q \
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
pinned "original timing, --spin" 1 "original --spin" env
pinned "original timing, --spin=100 (sleeps until 100 us before)" 0 "original --spin=100" env

# the workers' own CPU lists, read from /proc while a spinning replay of 4 s runs (once both
# workers are there: a loaded machine may take a while to start it)
"$GEN_TRACE" -o "$T/s.reel" -t 2 -r 1000 -d 4 -s $((1 << 20)) --seed 8 >/dev/null ||
	fail "gen_trace (4 s)"
"$IOREEL" replay "$T/s.reel" --target "$T/tgt2" --timing original --spin -q -o "$T/s-r.reel" \
	>"$T/out" 2>&1 &
pid=$!
for _ in $(seq 100); do
	for task in /proc/$pid/task/*; do
		name=$(cat "$task/comm" 2>/dev/null) || continue
		case $name in ioreel-w[0-9]*) ;; *) continue ;; esac
		echo "$name $(awk '/^Cpus_allowed_list/ { print $2 }' "$task/status")"
	done >"$T/cpus"
	[ "$(wc -l <"$T/cpus")" -ge 2 ] && break
	sleep 0.1
done
wait $pid || fail "spinning replay: $(cat "$T/out")"
cat "$T/cpus"
[ "$(wc -l <"$T/cpus")" = 2 ] || fail "want 2 workers running, found: $(cat "$T/cpus")"
awk '{ print $2 }' "$T/cpus" | grep -qv '^[0-9]*$' && fail "a worker allowed more than one CPU"
[ "$(awk '{ print $2 }' "$T/cpus" | sort -u | wc -l)" = 2 ] || fail "two workers on one CPU"
echo PASS
