#!/bin/bash
# throughput.sh - ops/s of "ioreel replay --timing afap" against a plain pread64 loop (the
# ceiling) and fio, in the same run.
#
#   bash tests/bench_replay/throughput.sh          # short form (CI, label bench): 0.5 M ops, 3 reps
#   bash tests/bench_replay/throughput.sh --full   # full form: 1 M ops, 9 reps
#
# The traces (gen_trace --mode afap): N 4 KiB pread64 at random aligned offsets in one 64 MiB
# file per thread, page-cached on tmpfs; once with 1 thread, once with 2 threads (N in total).
# Rows, each the median over the repetitions; "vs ceil" is the median of the repetitions' own
# ratios (a repetition runs all of them back to back: the machine's speed,
# which drifts by several % from minute to minute here, cancels out of a pair), with their
# range beside ("reps"):
#   ceiling       ceiling.c: the trace's ops loaded into memory, then issued back to back with
#                 pread64 by one thread per trace thread; only the loop is timed
#   raw ceiling   ceiling.c --raw: the same loop issuing its syscalls with syscall(2), as
#                 ioreel does (replay/replay_sys.h): without glibc's cancellation-point
#                 bookkeeping, which the plain loop (the target's ceiling) pays
#   timed floor   ceiling.c --timed: the raw loop, each op timed with two TSC reads and its
#                 start, end and return value stored in memory: the least a replayer that
#                 measures its ops pays, before it reads a trace or writes a result
#   floor+traffic ceiling.c --traffic=ITEM,0,RESULT: the timed floor, each op also reading
#                 ITEM_BYTES of memory of its own, streamed, and writing RESULT_BYTES back
#                 into them, as ioreel reads its item from the segment and keeps the op's
#                 result in it (ioreel's sizes, below): its ns
#                 per op against the floor's is what that memory traffic costs the kernel's
#                 own work in the syscall (its caches), which ioreel's ns per op shows too;
#                 its ns between ops are not ioreel's (a synthetic copy)
#   ioreel afap   ioreel replay --timing afap; ops/s over the replay itself (result trace:
#                 first start .. last end; as fast as possible the replay runs in segments
#                 read ahead, and the pauses between them, where the trace is read and the
#                 results written, are not in the result's timeline); the wall time of the
#                 whole command (those pauses included) is shown beside it
#   no cuts       the same replay with segments never cut short (IOREEL_TEST_SEGMENT, a
#                 test knob): what the cuts are worth (replay_stage.c, stage__maybe_cut).
#                 For both: "threads idle", the share of the threads' time spent in gaps of
#                 over 0.1 ms between their ops (bench_stats idle_pct): waiting for the
#                 others at a segment's end, or for the next segment to start
#   ns between ops: for the timed floor and ioreel: the mean gap from an op's end to its
#                 thread's next start, gaps under 2 us (rbench.h, RBENCH_BETWEEN_GAP_NS): what
#                 each does per op besides the syscall, steadier than ops/s on a busy machine
#   ns per op:    for the same two: the ops' mean time from start to end (the syscall's own);
#                 where the two differ, the replayer's work slows the kernel's (caches)
#   time:         for the same two, where the threads' time went (rbench_budget): in the ops
#                 (and their median time, which a few held ops do not move), in gaps under
#                 2 us (the own work per op), of 2-100 us (preemptions, faults), over 100 us
#                 (waits: a segment's end), and before a thread's first op or after its last
#                 while others ran (the loop's threads end apart: one file reads slower)
#   fio           "ioreel export fio --root TARGET" + fio with replay_no_stall=1 added to each
#                 job of the exported job file; ops/s = all ops over the longest job's
#                 runtime (fio's terse output; fio's own group IOPS sums the jobs' IOPS,
#                 which overstates jobs that did not run side by side)
# All three read the same files, those ioreel prepares in its target: two file sets prepared
# apart read at speeds a few % apart (where their pages landed), which would be counted as
# the replayer's. Each of the three runs once before the repetitions, not counted, so that
# the files have been read before.
# Beside ops/s, CPU microseconds per op (user + system): of the ceiling's loop threads, and of
# the whole ioreel and fio commands (so an upper bound for them); for ioreel also split by
# thread as the result trace's meta records it: the workers (like for like with the loop's
# threads: the syscalls plus timing and hand-off), the dispatcher (decoding and routing the
# trace), the result writer (encoding and compressing the result trace).
# Peak RSS of the ioreel and fio commands (GNU time's %M; "-" without /usr/bin/time): fio
# loads its whole iolog before the job starts, ioreel streams the trace and the result.
# Targets: ioreel >= 95 % of the ceiling, and a ratio to the ceiling no lower than fio's.
# Missed targets print "TARGET MISSED:" and do not fail; a broken run exits 1; 77: no replay.
set -u
source "$(dirname "$0")/rbench_lib.sh"
rb_init throughput "$@"

if [ "$RB_FULL" = 1 ]; then
	OPS=1000000 REPS=9
else
	OPS=500000 REPS=3
fi
S=$RB_SCRATCH
SIZE=$((64 << 20))
# a replayer's memory per op: sizeof(struct ritem) (replay/replay_run.h), read from the
# segment, and sizeof(struct reel_op) (format/reel.h), the op's result written into it
ITEM_BYTES=192 RESULT_BYTES=112
rb_say "trace: $OPS x 4 KiB pread64 (afap), one 64 MiB file per thread on tmpfs; $REPS reps"
rb_say "CPU us/op: ceiling: its loop threads only; ioreel and fio: the whole command (trace or"
rb_say "iolog parsing, file set, result writing included): steadier than ops/s on a busy machine."
rb_say ""
rb_say "$(printf '%-7s | %-24s | %10s | %7s | %9s | %s' threads config 'ops/s' 'vs ceil' \
	'CPU us/op' 'notes')"

ROW='%-7s | %-24s | %10s | %7s | %9s |' # the table's fixed columns, for printf

# with_rss FILE CMD...: runs CMD, its peak RSS in MiB into FILE ("-" without GNU time)
with_rss() {
	local f=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M' -o "$f.kib" "$@" || return 1
		awk '{ v = $1 } END { printf "%.0f", v / 1024 }' "$f.kib" >"$f"
	else
		echo - >"$f"
		"$@"
	fi
}

# where the threads' time went (rbench.h, rbench_budget), kept per repetition for the timed
# floor (FL) and ioreel (IO): budget_keep PREFIX LINE; budget_row PREFIX -> the medians
BUDGET_KEYS="bud_op bud_between bud_gap bud_idle bud_tail op_p50_ns"
budget_keep() {
	for k in $BUDGET_KEYS; do
		eval "$1_$k+=(\"\$(rb_kv \"\$2\" $k)\")"
	done
}
budget_row() {
	local m=()

	for k in $BUDGET_KEYS; do
		eval "m+=(\"\$(rb_median \"\${$1_$k[@]}\")\")"
	done
	printf '%-7s | %-24s | %10s | %7s | %9s | time: ops %s %% (median op %s ns), between ops %s %%, gaps 2-100 us %s %%, waits %s %%, before/after the others %s %%' \
		"" "" "" "" "" "${m[0]}" "${m[5]}" "${m[1]}" "${m[2]}" "${m[3]}" "${m[4]}"
}

us_per_op() { # us_per_op CPU_SECONDS -> microseconds of CPU per op
	awk -v c="$1" -v n="$OPS" 'BEGIN { printf "%.2f", c * 1e6 / n }'
}

for thr in 1 2; do
	T=$S/t$thr.reel
	"$RBENCH_BIN/gen_trace" --mode afap -o "$T" -t "$thr" -n "$OPS" -s "$SIZE" --seed "$thr" ||
		rb_fail "gen_trace"
	CE=() CEC=() CR=() CRC=() FL=() FLC=() IOR=() FIR=() IO=() IOC=() WALL=() FI=() FIC=() WK=() DS=() WR=()
	TF=() TFB=() TFO=()
	NC=() IDL=() NCIDL=() FLB=() IOB=() FLO=() IOO=()
	for k in $BUDGET_KEYS; do eval "FL_$k=() IO_$k=()"; done
	# A warm-up run of each, not counted: ioreel prepares the files all three read, and they
	# have been read before (a page read for the first time since it was written costs more:
	# LRU activation, ~3 % of this rate for a freshly prepared file set)
	rm -rf "$S/tgt"
	mkdir -p "$S/tgt"
	"$IOREEL" replay "$T" --target "$S/tgt" --timing afap -q -o "$S/res.reel" \
		>"$S/replay.log" 2>&1 || { tail -5 "$S/replay.log" >&2; rb_fail "ioreel replay (warm-up)"; }
	"$RBENCH_BIN/ceiling" "$T" "$S/tgt" >/dev/null || rb_fail "ceiling (warm-up)"
	fio_ok=1
	rb_fio_job "$T" "$S/fio" "$S/tgt" replay_no_stall=1 || fio_ok=0
	if [ $fio_ok = 1 ]; then
		(cd "$S/fio" && fio --output-format=terse --terse-version=3 --output="$S/fio.out" \
			job.fio >"$S/fio.log" 2>&1) || { tail -5 "$S/fio.log" >&2; rb_fail "fio (warm-up)"; }
	fi
	for r in $(seq "$REPS"); do
		l=$("$RBENCH_BIN/ceiling" "$T" "$S/tgt") || rb_fail "ceiling"
		CE+=("$(rb_kv "$l" ops_per_s)")
		CEC+=("$(awk -v n="$(rb_kv "$l" cpu_ns_per_op)" 'BEGIN { printf "%.2f", n / 1000 }')")
		l=$("$RBENCH_BIN/ceiling" --raw "$T" "$S/tgt") || rb_fail "ceiling --raw"
		CR+=("$(rb_kv "$l" ops_per_s)")
		CRC+=("$(awk -v n="$(rb_kv "$l" cpu_ns_per_op)" 'BEGIN { printf "%.2f", n / 1000 }')")
		l=$("$RBENCH_BIN/ceiling" --timed "$T" "$S/tgt") || rb_fail "ceiling --timed"
		FL+=("$(rb_kv "$l" ops_per_s)")
		FLC+=("$(awk -v n="$(rb_kv "$l" cpu_ns_per_op)" 'BEGIN { printf "%.2f", n / 1000 }')")
		FLB+=("$(rb_kv "$l" between_ns)")
		FLO+=("$(rb_kv "$l" op_ns)")
		budget_keep FL "$l"
		l=$("$RBENCH_BIN/ceiling" --traffic=$ITEM_BYTES,0,$RESULT_BYTES "$T" "$S/tgt") ||
			rb_fail "ceiling --traffic"
		TF+=("$(rb_kv "$l" ops_per_s)")
		TFB+=("$(rb_kv "$l" between_ns)")
		TFO+=("$(rb_kv "$l" op_ns)")

		rm -f "$S/res.reel"
		t0=$(date +%s%N)
		rb_cpu "$S/cpu" "$S/replay.log" with_rss "$S/rss" "$IOREEL" replay "$T" \
			--target "$S/tgt" --timing afap -q -o "$S/res.reel" ||
			{ tail -5 "$S/replay.log" >&2; rb_fail "ioreel replay"; }
		t1=$(date +%s%N)
		IOC+=("$(us_per_op "$(cat "$S/cpu")")")
		IOR+=("$(cat "$S/rss")")
		l=$("$RBENCH_BIN/bench_stats" result "$T" "$S/res.reel") || rb_fail "bench_stats"
		[ "$(rb_kv "$l" n)" = "$OPS" ] || rb_fail "replay issued $(rb_kv "$l" n) of $OPS ops"
		[ "$(rb_kv "$l" errors)" = 0 ] || rb_fail "replay had $(rb_kv "$l" errors) failed ops"
		IO+=("$(rb_kv "$l" ops_per_s)")
		IDL+=("$(rb_kv "$l" idle_pct)")
		IOB+=("$(rb_kv "$l" between_ns)")
		IOO+=("$(rb_kv "$l" op_ns)")
		budget_keep IO "$l"
		WK+=("$(awk -v n="$(rb_kv "$l" cpu_workers_ns_per_op)" 'BEGIN { printf "%.2f", n / 1000 }')")
		DS+=("$(awk -v n="$(rb_kv "$l" cpu_dispatch_ns_per_op)" 'BEGIN { printf "%.2f", n / 1000 }')")
		WR+=("$(awk -v n="$(rb_kv "$l" cpu_writer_ns_per_op)" 'BEGIN { printf "%.2f", n / 1000 }')")
		# the same without cutting segments short (a test knob: the default segment size,
		# cuts off), for what the cuts are worth
		IOREEL_TEST_SEGMENT=4294967295,0 "$IOREEL" replay "$T" --target "$S/tgt" \
			--timing afap -q -o "$S/res-nc.reel" >"$S/replay-nc.log" 2>&1 ||
			{ tail -5 "$S/replay-nc.log" >&2; rb_fail "ioreel replay (no cuts)"; }
		l=$("$RBENCH_BIN/bench_stats" result "$T" "$S/res-nc.reel") || rb_fail "bench_stats"
		[ "$(rb_kv "$l" n)" = "$OPS" ] && [ "$(rb_kv "$l" errors)" = 0 ] ||
			rb_fail "replay without cuts: $(rb_kv "$l" n) of $OPS ops, $(rb_kv "$l" errors) failed"
		NC+=("$(rb_kv "$l" ops_per_s)")
		NCIDL+=("$(rb_kv "$l" idle_pct)")
		WALL+=("$(awk -v n="$OPS" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1e9 / ns }')")

		if [ $fio_ok = 1 ]; then
			(cd "$S/fio" && rb_cpu "$S/cpu" "$S/fio.log" with_rss "$S/rss" fio \
				--output-format=terse --terse-version=3 --output="$S/fio.out" job.fio) ||
				{ tail -5 "$S/fio.log" >&2; rb_fail "fio"; }
			FIC+=("$(us_per_op "$(cat "$S/cpu")")")
			FIR+=("$(cat "$S/rss")")
			# terse v3, one line per job: field 6 read KiB, field 9 read runtime (ms)
			FI+=("$(awk -F';' '{ kb += $6; if ($9 > rt) rt = $9 }
				END { printf "%.0f %.0f", rt ? kb / 4 * 1000 / rt : 0, kb / 4 }' "$S/fio.out")")
			[ "${FI[-1]#* }" = "$OPS" ] || rb_fail "fio read ${FI[-1]#* } of $OPS ops"
			FI[-1]=${FI[-1]% *}
		fi
		echo "threads $thr rep $r: ceiling ${CE[-1]} (${CEC[-1]} us/op)" \
			"raw ceiling ${CR[-1]} (${CRC[-1]} us/op)" \
			"timed floor ${FL[-1]} (${FLC[-1]} us/op) ioreel ${IO[-1]}" \
			"(${IOC[-1]} us/op, wall ${WALL[-1]}) ioreel without cuts ${NC[-1]}" \
			"fio ${FI[-1]:-} (${FIC[-1]:-} us/op)" >>"$RB_OUT"
	done
	# ratios to the ceiling: the median of each repetition's own (rb_paired), its range beside
	mapfile -t RCR < <(rb_paired CR CE)
	mapfile -t RFL < <(rb_paired FL CE)
	mapfile -t RTF < <(rb_paired TF CE)
	mapfile -t RIO < <(rb_paired IO CE)
	mapfile -t RNC < <(rb_paired NC CE)
	mapfile -t RIOFL < <(rb_paired IO FL)
	ce=$(rb_median "${CE[@]}")
	io=$(rb_median "${IO[@]}")
	rio=$(rb_median "${RIO[@]}")
	wall=$(rb_median "${WALL[@]}")
	rb_say "$(printf '%-7s | %-24s | %10s | %7s | %9s |' "$thr" "ceiling (pread64 loop)" "$ce" \
		1.00 "$(rb_median "${CEC[@]}")")"
	rb_say "$(printf "$ROW the same loop through syscall(2), as ioreel issues them; reps %s" \
		"$thr" "ceiling, syscall(2)" "$(rb_median "${CR[@]}")" \
		"$(rb_ratio "$(rb_median "${RCR[@]}")" 1)" "$(rb_median "${CRC[@]}")" \
		"$(rb_spread "${RCR[@]}")")"
	rb_say "$(printf "$ROW two clock reads + a stored result per op; %s ns between ops, %s ns per op; reps %s" \
		"$thr" "timed floor (raw loop)" "$(rb_median "${FL[@]}")" \
		"$(rb_ratio "$(rb_median "${RFL[@]}")" 1)" "$(rb_median "${FLC[@]}")" \
		"$(rb_median "${FLB[@]}")" "$(rb_median "${FLO[@]}")" "$(rb_spread "${RFL[@]}")")"
	rb_say "$(budget_row FL)"
	rb_say "$(printf "$ROW the floor + %s B read and %s B of it written per op; %s ns between ops, %s ns per op; reps %s" \
		"$thr" "floor + memory traffic" "$(rb_median "${TF[@]}")" \
		"$(rb_ratio "$(rb_median "${RTF[@]}")" 1)" - "$ITEM_BYTES" "$RESULT_BYTES" \
		"$(rb_median "${TFB[@]}")" "$(rb_median "${TFO[@]}")" "$(rb_spread "${RTF[@]}")")"
	rb_say "$(printf "$ROW reps %s; %s of the timed floor; %s ns between ops, %s ns per op; threads idle %s %%" \
		"$thr" "ioreel replay afap" "$io" "$(rb_ratio "$rio" 1)" "$(rb_median "${IOC[@]}")" \
		"$(rb_spread "${RIO[@]}")" "$(rb_ratio "$(rb_median "${RIOFL[@]}")" 1)" \
		"$(rb_median "${IOB[@]}")" "$(rb_median "${IOO[@]}")" "$(rb_median "${IDL[@]}")")"
	rb_say "$(budget_row IO)"
	rb_say "$(printf '%-7s | %-24s | %10s | %7s | %9s | whole command %s ops/s, peak RSS %s MiB' \
		"" "" "" "" "" "$wall" "$(rb_median "${IOR[@]}")")"
	rb_say "$(printf '%-7s | %-24s | %10s | %7s | %9s | CPU: workers %s (the loop: %s), dispatch %s, writer %s' \
		"" "" "" "" "" "$(rb_median "${WK[@]}")" "$(rb_median "${CEC[@]}")" \
		"$(rb_median "${DS[@]}")" "$(rb_median "${WR[@]}")")"
	rb_say "$(printf "$ROW segments never cut short: threads idle %s %%" \
		"$thr" "ioreel, no segment cuts" "$(rb_median "${NC[@]}")" \
		"$(rb_ratio "$(rb_median "${RNC[@]}")" 1)" - "$(rb_median "${NCIDL[@]}")")"
	if [ $fio_ok = 1 ]; then
		mapfile -t RFI < <(rb_paired FI CE)
		fi=$(rb_median "${FI[@]}")
		rfi=$(rb_median "${RFI[@]}")
		rb_say "$(printf "$ROW reps %s; peak RSS %s MiB (its whole iolog loaded first)" \
			"$thr" "fio replay_no_stall=1" "$fi" "$(rb_ratio "$rfi" 1)" \
			"$(rb_median "${FIC[@]}")" "$(rb_spread "${RFI[@]}")" "$(rb_median "${FIR[@]}")")"
		[ "$thr" -gt 1 ] && ! rb_le "$fi" "$ce" &&
			rb_say "NOTE: fio above the ceiling: its jobs' runtimes are measured apart (each" \
				"from its own start), so jobs that did not run side by side look faster"
	else
		rfi=""
		rb_say "$(printf '%-7s | %-24s | %10s | %7s | %9s | %s' "$thr" fio - - - \
			"$(cat "$S/fio/note")")"
	fi
	eval "RIO_$thr=$rio RFI_$thr=$rfi"
done

rb_say ""
for thr in 1 2; do
	rio=$(eval echo "\$RIO_$thr") rfi=$(eval echo "\$RFI_$thr")
	rb_check "$(rb_le 0.95 "$rio" && echo 1)" \
		"$thr thread(s): ioreel >= 95 % of the ceiling" "$(printf %.3f "$rio")x"
	if [ -n "$rfi" ]; then
		rb_check "$(rb_le "$rfi" "$rio" && echo 1)" \
			"$thr thread(s): ioreel's ratio to the ceiling no lower than fio's" \
			"ioreel $(printf %.3f "$rio") vs fio $(printf %.3f "$rfi")"
	else
		rb_say "TARGET NOT MEASURED: $thr thread(s): ratio vs fio's (fio did not run)"
	fi
done
echo "results: $RB_OUT"
