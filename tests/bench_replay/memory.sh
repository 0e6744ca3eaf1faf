#!/bin/bash
# memory.sh - bounded memory of "ioreel replay --timing afap" on long traces: its peak RSS must
# not grow with the trace (the replay streams the trace and its result).
#
#   bash tests/bench_replay/memory.sh          # short form (CI, label bench): 1 M and 5 M ops
#   bash tests/bench_replay/memory.sh --full   # full form (label bench-long): 5 M and 50 M ops
#
# The traces (gen_trace --mode afap): 4 threads, 4 KiB pread64/pwrite64 (10 % writes) at random
# offsets in one 1 MiB file per thread, on tmpfs. The trace's size is estimated from a 1 M-op
# sample first and the run skips when the scratch file system lacks room for trace + result.
# Peak RSS (max resident set) comes from /usr/bin/time -f %M (wait4's rusage), or, without
# GNU time, from polling VmHWM in /proc/PID/status. The smaller trace is the peer: a replay
# whose memory is bounded has about the same peak on both.
# Then the smaller trace's ops again, each thread a succession of short processes of 10 ops
# (gen_trace --proc-ops: 100 k processes, 500 k in the full form): what the replay keeps by
# process and thread must go when they end (a build, a database's backend per connection).
# Then memory by distinct path (stats of 100 k and 400 k paths): it does grow with them.
# Target: peak RSS < 200 MiB on the larger trace, and on the many processes. A miss prints
# "TARGET MISSED:" and does not fail; a broken run (replay error, missing ops) exits 1; 77: no
# replay, or no room.
set -u
source "$(dirname "$0")/rbench_lib.sh"
rb_init memory "$@"

if [ "$RB_FULL" = 1 ]; then
	SIZES="5000000 50000000"
else
	SIZES="1000000 5000000"
fi
S=$RB_SCRATCH
LIMIT_KIB=$((200 * 1024))
GEN=("$RBENCH_BIN/gen_trace" --mode afap -t 4 -w 10 -s $((1 << 20)) --seed 7)

"${GEN[@]}" -o "$S/sample.reel" -n 1000000 || rb_fail "gen_trace (sample)"
per_m=$(stat -c %s "$S/sample.reel")
rm -f "$S/sample.reel"
big=${SIZES#* }
# The result carries measured times, which compress worse: allow 16 bytes per op for it.
need_kib=$(((per_m * (big / 1000000) + 16 * big) / 1024))
avail_kib=$(df -Pk "$S" | awk 'NR == 2 { print $4 }')
rb_say "trace size: $per_m bytes per million ops ($(rb_ratio "$per_m" 1000000) B/op);" \
	"need ~$((need_kib / 1024)) MiB for the ${big}-op trace and its result," \
	"$((avail_kib / 1024)) MiB free in $S"
[ "$avail_kib" -gt "$need_kib" ] || rb_skip "not enough room in $S for the ${big}-op run"

# peak_rss_kib CMD... -> runs CMD, prints its peak RSS in KiB (fails like CMD)
peak_rss_kib() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f 'RSS_KIB=%M' -o "$S/time.out" "$@" >"$S/cmd.log" 2>&1 || return 1
		sed -n 's/^RSS_KIB=//p' "$S/time.out"
	else
		local pid hwm=0 h
		"$@" >"$S/cmd.log" 2>&1 &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
			[ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
			sleep 0.05
		done
		wait "$pid" || return 1
		echo "$hwm"
	fi
}

rb_say ""
rb_say "$(printf '%12s | %9s | %12s | %14s | %12s | %s' ops processes 'trace MiB' 'peak RSS MiB' \
	'replay s' 'ops/s')"
declare -A RSS
small=${SIZES% *}
for run in $SIZES many; do
	n=$run procs=1 extra=()
	if [ "$run" = many ]; then
		n=$small procs=$((small / 10)) extra=(--proc-ops 10)
	fi
	T=$S/t$run.reel
	"${GEN[@]}" -o "$T" -n "$n" "${extra[@]}" || rb_fail "gen_trace ($n ops)"
	rm -rf "$S/tgt" "$S/res.reel"
	mkdir -p "$S/tgt"
	t0=$(date +%s%N)
	kib=$(peak_rss_kib "$IOREEL" replay "$T" --target "$S/tgt" --timing afap -o "$S/res.reel") ||
		{ tail -5 "$S/cmd.log" >&2; rb_fail "ioreel replay of $n ops"; }
	t1=$(date +%s%N)
	l=$("$RBENCH_BIN/bench_stats" count "$S/res.reel") || rb_fail "bench_stats"
	[ "$(rb_kv "$l" data_ops)" = "$n" ] || rb_fail "replay issued $(rb_kv "$l" data_ops) of $n ops"
	[ "$(rb_kv "$l" errors)" = 0 ] || rb_fail "replay had $(rb_kv "$l" errors) failed ops"
	RSS[$run]=$kib
	rb_say "$(printf '%12s | %9s | %12s | %14s | %12s | %s' "$n" "$procs" \
		"$(rb_ratio "$(stat -c %s "$T")" 1048576)" "$(rb_ratio "$kib" 1024)" \
		"$(rb_ratio $((t1 - t0)) 1000000000)" \
		"$(awk -v n="$n" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1e9 / ns }')")"
	rm -f "$T" "$S/res.reel"
done
rb_say ""
rb_say "peak RSS growth: $(rb_ratio "${RSS[$big]}" "${RSS[$small]}")x for $((big / small))x the ops;" \
	"$(rb_ratio "${RSS[many]}" "${RSS[$small]}")x for the same ops in $((small / 10)) processes"
rb_check "$( [ "${RSS[$big]}" -lt $LIMIT_KIB ] && echo 1)" \
	"peak RSS of the ${big}-op replay < 200 MiB" "$(rb_ratio "${RSS[$big]}" 1024) MiB"
rb_check "$( [ "${RSS[many]}" -lt $LIMIT_KIB ] && echo 1)" \
	"peak RSS of the ${small}-op replay in $((small / 10)) processes < 200 MiB" \
	"$(rb_ratio "${RSS[many]}" 1024) MiB"

# What does grow: per distinct path. Stats of N distinct paths (all ENOENT, as a find or an
# rsync over a large tree would have many), imported from a generated strace log; the peak
# RSS of replay and report at two N, and their difference per path. Informational: the
# README gives these numbers, no target.
declare -A PRSS
PATHS="100000 400000"
for n in $PATHS; do
	python3 - "$n" >"$S/paths.log" <<'PY'
import sys
n = int(sys.argv[1])
for i in range(n):
    print('100 %.6f newfstatat(AT_FDCWD, "/data/dir%04d/file%08d", 0x7ffd0000, 0) = -1 ENOENT '
          '(No such file or directory) <0.000002>' % (1700000000 + i * 1e-5, i % 1000, i))
PY
	"$IOREEL" import strace "$S/paths.log" -o "$S/paths.reel" >/dev/null 2>&1 ||
		rb_fail "import of $n paths"
	rm -f "$S/paths.log"
	rm -rf "$S/tgt"
	PRSS[replay$n]=$(peak_rss_kib "$IOREEL" replay "$S/paths.reel" --target "$S/tgt" \
		--timing afap -o "$S/paths.res.reel") || rb_fail "replay of $n paths"
	PRSS[report$n]=$(peak_rss_kib "$IOREEL" report "$S/paths.reel" "$S/paths.res.reel") ||
		rb_fail "report of $n paths"
	rb_say "$n distinct paths: peak RSS replay $(rb_ratio "${PRSS[replay$n]}" 1024) MiB," \
		"report $(rb_ratio "${PRSS[report$n]}" 1024) MiB"
	rm -rf "$S/tgt" "$S/paths.reel" "$S/paths.res.reel"
done
lo=${PATHS% *} hi=${PATHS#* }
rb_say "memory per distinct path: replay" \
	"$(((PRSS[replay$hi] - PRSS[replay$lo]) * 1024 / (hi - lo))) B," \
	"report $(((PRSS[report$hi] - PRSS[report$lo]) * 1024 / (hi - lo))) B"
echo "results: $RB_OUT"
