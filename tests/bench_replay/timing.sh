#!/bin/bash
# timing.sh - timing fidelity of "ioreel replay --timing original", against its peers in the
# same run.
#
#   bash tests/bench_replay/timing.sh          # short form (CI, label bench): 3 s trace, 3 reps
#   bash tests/bench_replay/timing.sh --full   # full form: 30 s trace, 5 reps, fio 3 times
#
# The trace: 8 threads, 10 k ops/s in total, 4 KiB pread64/pwrite64 (25 % writes) on one
# 16 MiB file per thread, gaps uniform in [0.5, 1.5] x 800 us (gen_trace, seed 1). Replayed
# on tmpfs (/dev/shm scratch target). Lateness = start - scheduled, over reads and writes.
# Rows, each the median over the repetitions of each statistic:
#   ioreel original         ioreel replay --timing original (sleeping workers)
#   sleep floor             sleep_floor: 8 threads clock_nanosleep(TIMER_ABSTIME) to the same
#                           absolute schedule, timer slack 1 ns, no I/O: the floor of sleeping
#   ioreel --spin, 2 thr    a 2-thread trace (same per-thread rate) with --spin (wait by
#                           spinning, never sleep): no more spinning threads than the cores
#   spin floor, 2 thr       sleep_floor --spin 1000000 on that trace: spin up to each op's
#                           time, no I/O: the floor of a spinning replayer. (A window such as
#                           --spin=100 that sleeps first inherits the sleep's overshoot: on
#                           this VM wake-ups are > 100 us late often enough to set the p99.)
#   fio read_iolog          "ioreel export fio --root TARGET" + fio (psync, the exported job
#                           file) on the same files under a tmpfs target. fio's syscalls are
#                           traced with perf record on the syscall tracepoints (strace -ff
#                           when perf is missing, or with RBENCH_FIO_TRACER=strace: ptrace
#                           slows fio, the output says so). fio keeps no absolute schedule,
#                           so each job's schedule (the iolog times) is anchored where it
#                           suits fio best: its least late op is on time; a constant start-up
#                           delay is not counted, drift and jitter are (fio_lateness.c).
#   ioreel anchored         ioreel's own lateness, re-anchored the same way per thread, for a
#                           like-for-like comparison with fio.
# Targets: ioreel p50 and p99 within 1.5x of the sleep floor's; duration within 0.5 % of the
# original; p99 at least 50x better than fio's; --spin p99 <= 10 us. Missed targets print
# "TARGET MISSED:" and do not fail the test; a broken run does (exit 1). Exit 77: no replay.
set -u
source "$(dirname "$0")/rbench_lib.sh"
rb_init timing "$@"

if [ "$RB_FULL" = 1 ]; then
	SECS=30 REPS=5 FIO_REPS=3
else
	SECS=3 REPS=3 FIO_REPS=1
fi
S=$RB_SCRATCH
T8=$S/t8.reel
T2=$S/t2.reel
"$RBENCH_BIN/gen_trace" -o "$T8" -t 8 -r 10000 -d "$SECS" -w 25 -s $((16 << 20)) --seed 1 ||
	rb_fail "gen_trace (8 threads)"
"$RBENCH_BIN/gen_trace" -o "$T2" -t 2 -r 2500 -d "$SECS" -w 25 -s $((16 << 20)) --seed 2 ||
	rb_fail "gen_trace (2 threads)"
rb_say "trace: 8 threads, 10000 ops/s, ${SECS} s, 25 % writes, 4 KiB; spin trace: 2 threads," \
	"2500 ops/s; $REPS repetitions (median of each statistic), fio $FIO_REPS"

# replay TRACE ARGS... -> prints bench_stats' line for one replay into a fresh target
replay() {
	local trace=$1 log=$S/replay.log
	shift
	rm -rf "$S/tgt" "$S/res.reel"
	mkdir -p "$S/tgt"
	if ! "$IOREEL" replay "$trace" --target "$S/tgt" "$@" -o "$S/res.reel" >"$log" 2>&1; then
		tail -5 "$log" >&2
		rb_fail "ioreel replay $* failed"
	fi
	"$RBENCH_BIN/bench_stats" result "$trace" "$S/res.reel" || rb_fail "bench_stats"
}

# fio_once -> fio_lateness' line, or nothing (and a note in $S/fio.note) when fio can't run
fio_once() {
	local d=$S/fio ev=$S/fio.events logs=() job=$S/fio/job.fio
	rm -rf "$S/fiotgt"
	rb_fio_job "$T8" "$d" "$S/fiotgt" || { cp "$d/note" "$S/fio.note"; return 0; }
	mapfile -t logs <"$d/iologs"
	rm -f "$ev"
	if [ "${RBENCH_FIO_TRACER:-perf}" = perf ] && command -v perf >/dev/null &&
		perf record -q -k mono -o "$S/perf.data" \
		-e syscalls:sys_enter_pread64 -e syscalls:sys_enter_pwrite64 \
		-- true >/dev/null 2>&1; then
		(cd "$d" && perf record -q -k mono -m 1024 -o "$S/perf.data" \
			-e syscalls:sys_enter_pread64 -e syscalls:sys_enter_pwrite64 \
			-- fio --output="$S/fio.out" "$job") >"$S/fio.log" 2>&1 ||
			{ tail -5 "$S/fio.log" >&2; rb_fail "fio under perf failed"; }
		perf script -i "$S/perf.data" -F tid,time,trace --ns 2>/dev/null |
			awk '{ t = $2; sub(/:$/, "", t); p = ""
			       for (i = 3; i < NF; i++) if ($i == "pos:") p = $(i + 1)
			       if (p != "") print $1, t, p }' >"$ev"
		echo "perf" >"$S/fio.tracer"
	else
		# -ff: one file per thread, so that no call is split into unfinished/resumed lines.
		rm -f "$S"/strace.*
		(cd "$d" && strace -ff -qq -ttt -s 0 -e trace=pread64,pwrite64 -o "$S/strace" \
			fio --output="$S/fio.out" "$job") >"$S/fio.log" 2>&1 ||
			{ tail -5 "$S/fio.log" >&2; rb_fail "fio under strace failed"; }
		for f in "$S"/strace.*; do
			sed -n "s/^\([0-9.]*\) p\(read\|write\)64(.*, \([0-9]*\)) = .*/${f##*.} \1 \3/p" "$f"
		done >"$ev"
		echo "strace" >"$S/fio.tracer"
	fi
	"$RBENCH_BIN/fio_lateness" "${logs[@]}" <"$ev" || rb_fail "fio_lateness"
}

IO=() FL=() SP=() SF=() FIO=()
for r in $(seq "$REPS"); do
	# Subshells cannot end the script: every capture checks its own status.
	l=$(replay "$T8" --timing original) || exit 1
	IO+=("$l")
	l=$("$RBENCH_BIN/sleep_floor" "$T8") || rb_fail "sleep_floor"
	FL+=("$l")
	l=$(replay "$T2" --timing original --spin) || exit 1
	SP+=("$l")
	l=$("$RBENCH_BIN/sleep_floor" --spin 1000000 "$T2") || rb_fail "sleep_floor --spin"
	SF+=("$l")
	echo "rep $r: ioreel ${IO[-1]}" >>"$RB_OUT"
	echo "rep $r: floor  ${FL[-1]}" >>"$RB_OUT"
	echo "rep $r: spin   ${SP[-1]}" >>"$RB_OUT"
	echo "rep $r: spinfl ${SF[-1]}" >>"$RB_OUT"
done
rm -f "$S/fio.note"
for r in $(seq "$FIO_REPS"); do
	l=$(fio_once) || exit 1
	[ -n "$l" ] || break
	FIO+=("$l")
	echo "rep $r: fio    $l" >>"$RB_OUT"
done

# Every replay must have issued every op, without errors: otherwise the numbers mean nothing.
for l in "${IO[@]}" "${SP[@]}"; do
	[ "$(rb_kv "$l" n)" = "$(rb_kv "$l" orig_n)" ] || rb_fail "replay issued $(rb_kv "$l" n) of $(rb_kv "$l" orig_n) ops"
	[ "$(rb_kv "$l" errors)" = 0 ] || rb_fail "replay had $(rb_kv "$l" errors) failed ops"
done

row() { # row LABEL PREFIX LINES...
	local label=$1 p=$2 n p50 p99 max dur odur
	shift 2
	n=$(rb_median_of "${p}n" "$@")
	p50=$(rb_median_of "${p}p50_ns" "$@")
	p99=$(rb_median_of "${p}p99_ns" "$@")
	max=$(rb_median_of "${p}max_ns" "$@")
	dur=$(rb_median_of dur_ns "$@")
	odur=$(rb_median_of orig_dur_ns "$@")
	printf '%-38s | %7s | %10s | %10s | %10s | %s\n' "$label" "$n" "$(rb_us "$p50") us" \
		"$(rb_us "$p99") us" "$(rb_us "$max") us" "$(rb_pct_diff "$dur" "$odur") %" |
		tee -a "$RB_OUT"
}

rb_say ""
rb_say "$(printf '%-38s | %7s | %10s | %10s | %10s | %s' config ops 'late p50' p99 max \
	'duration vs original')"
row "ioreel original, 8 thr" "" "${IO[@]}"
row "sleep floor (clock_nanosleep), 8 thr" "" "${FL[@]}"
row "ioreel original --spin, 2 thr" "" "${SP[@]}"
row "spin floor (spin loop), 2 thr" "" "${SF[@]}"
row "ioreel original, 8 thr, anchored" anc_ "${IO[@]}"
if [ ${#FIO[@]} -gt 0 ]; then
	row "fio read_iolog, 8 jobs, anchored" "" "${FIO[@]}"
	rb_say "(fio traced with $(cat "$S/fio.tracer"); ops matched to iologs:" \
		"$(rb_kv "${FIO[0]}" matched); 'anchored' = each thread's schedule shifted so that its least late op is on time)"
	[ "$(cat "$S/fio.tracer")" = strace ] &&
		rb_say "NOTE: strace stops fio at every syscall (ptrace): fio's lateness is inflated."
else
	rb_say "fio: not measured: $(cat "$S/fio.note" 2>/dev/null)"
fi
rb_say ""

io_p50=$(rb_median_of p50_ns "${IO[@]}")
io_p99=$(rb_median_of p99_ns "${IO[@]}")
fl_p50=$(rb_median_of p50_ns "${FL[@]}")
fl_p99=$(rb_median_of p99_ns "${FL[@]}")
io_dur=$(rb_median_of dur_ns "${IO[@]}")
or_dur=$(rb_median_of orig_dur_ns "${IO[@]}")
sp_p99=$(rb_median_of p99_ns "${SP[@]}")
sf_p99=$(rb_median_of p99_ns "${SF[@]}")
rb_check "$(rb_le "$io_p50" "$(awk -v f="$fl_p50" 'BEGIN { print 1.5 * f }')" && echo 1)" \
	"lateness p50 within 1.5x of the sleep floor's" \
	"$(rb_us "$io_p50") us vs $(rb_us "$fl_p50") us: $(rb_ratio "$io_p50" "$fl_p50")x"
rb_check "$(rb_le "$io_p99" "$(awk -v f="$fl_p99" 'BEGIN { print 1.5 * f }')" && echo 1)" \
	"lateness p99 within 1.5x of the sleep floor's" \
	"$(rb_us "$io_p99") us vs $(rb_us "$fl_p99") us: $(rb_ratio "$io_p99" "$fl_p99")x"
d=$(rb_pct_diff "$io_dur" "$or_dur")
rb_check "$(awk -v d="$d" 'BEGIN { print (d <= 0.5 && d >= -0.5) }')" \
	"duration within 0.5 % of the original" "$d %"
if [ ${#FIO[@]} -gt 0 ]; then
	fio_p99=$(rb_median_of p99_ns "${FIO[@]}")
	io_ap99=$(rb_median_of anc_p99_ns "${IO[@]}")
	rb_check "$(rb_le "$((50 * io_p99))" "$fio_p99" && echo 1)" \
		"lateness p99 at least 50x better than fio's" \
		"fio $(rb_us "$fio_p99") us / ioreel $(rb_us "$io_p99") us = $(rb_ratio "$fio_p99" "$io_p99")x; anchored alike: $(rb_ratio "$fio_p99" "$io_ap99")x"
else
	rb_say "TARGET NOT MEASURED: p99 at least 50x better than fio's (fio did not run)"
fi
rb_check "$(rb_le "$sp_p99" 10000 && echo 1)" "--spin with 2 threads on $(nproc) cores: p99 <= 10 us" \
	"$(rb_us "$sp_p99") us; the bare spin floor's p99 here and now: $(rb_us "$sf_p99") us"
echo "results: $RB_OUT"
