# shellcheck shell=bash
# rbench_lib.sh - shared by the replay benchmarks (sourced): tool lookup, scratch dir, skip,
# "key=value" parsing, medians, the results table and file.
#
# Environment: IOREEL (the ioreel binary), RBENCH_BIN (directory of gen_trace, sleep_floor,
# ceiling, bench_stats, fio_lateness), RBENCH_RESULTS (directory of the results files).
# ctest sets the first two; by hand they default to ./build.

RB_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RB_ROOT=$(cd "$RB_SRC/../.." && pwd)
IOREEL=${IOREEL:-$RB_ROOT/build/ioreel}
RBENCH_BIN=${RBENCH_BIN:-$RB_ROOT/build/tests/bench_replay}
RB_FULL=0
RB_SCRATCH=""

rb_skip() {
	echo "SKIP: $*"
	exit 77
}

rb_fail() {
	echo "BROKEN RUN: $*" >&2
	exit 1
}

rb_cleanup() {
	[ -n "$RB_SCRATCH" ] && rm -rf "$RB_SCRATCH"
}

# rb_init NAME "$@": parses --full, checks the tools, makes the scratch dir on tmpfs and the
# results file.
rb_init() {
	local name=$1
	shift
	for a in "$@"; do
		case $a in
		--full) RB_FULL=1 ;;
		-h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
		*) rb_fail "unknown argument $a (try --help)" ;;
		esac
	done
	for t in gen_trace sleep_floor ceiling bench_stats fio_lateness; do
		[ -x "$RBENCH_BIN/$t" ] || rb_fail "$RBENCH_BIN/$t missing: build first"
	done
	[ -x "$IOREEL" ] || rb_fail "$IOREEL missing: build first"
	if ! "$IOREEL" replay --help >/dev/null 2>&1; then
		rb_skip "'ioreel replay' is not available in this build yet"
	fi
	RB_SCRATCH=$(mktemp -d /dev/shm/rbench-"$name".XXXXXX) || rb_fail "no scratch dir"
	trap rb_cleanup EXIT
	RBENCH_RESULTS=${RBENCH_RESULTS:-$RBENCH_BIN/results}
	mkdir -p "$RBENCH_RESULTS"
	RB_OUT=$RBENCH_RESULTS/$name-$([ $RB_FULL = 1 ] && echo full || echo short).txt
	: >"$RB_OUT"
	rb_say "# $name ($([ $RB_FULL = 1 ] && echo full || echo short) form) $(date -u +%FT%TZ)" \
		"on $(nproc) cores, kernel $(uname -r), $(git -C "$RB_ROOT" describe --always --dirty 2>/dev/null)," \
		"load average $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine: noise)"
}

# Prints to stdout and the results file.
rb_say() {
	echo "$*" | tee -a "$RB_OUT"
}

# rb_kv "k1=v1 k2=v2" k2 -> v2
rb_kv() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

# rb_median V... -> the median (lower middle for an even count) of numbers
rb_median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# rb_us NS -> microseconds with one decimal
rb_us() {
	awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'
}

# rb_ratio A B -> A/B with two decimals ("-" when B is 0 or empty)
rb_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}

# rb_paired NAME_A NAME_B -> the ratios A[i]/B[i] of two arrays (by name) of the same
# repetitions, one per line: each pair ran back to back, so drift of the machine's speed
# between repetitions cancels out of the ratio
rb_paired() {
	local -n pa=$1 pb=$2
	for i in "${!pa[@]}"; do
		rb_ratio_exact "${pa[$i]}" "${pb[$i]}"
	done
}

# rb_ratio_exact A B -> A/B with four decimals (for further statistics)
rb_ratio_exact() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print 0; else printf "%.4f\n", a / b }'
}

# rb_spread V... -> "min-max" of numbers, two decimals
rb_spread() {
	printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
		END { printf "%.2f-%.2f", lo, hi }'
}

# rb_pct_diff A B -> (A - B) / B in percent, signed, three decimals
rb_pct_diff() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%+.3f", (a - b) * 100 / b }'
}

# rb_le A B -> success when A <= B (numbers)
rb_le() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'
}

# rb_check COND_OK "what the target is" "measured"
rb_check() {
	if [ "$1" = 1 ]; then
		rb_say "TARGET MET: $2 ($3)"
	else
		rb_say "TARGET MISSED: $2 ($3)"
	fi
}

# rb_median_of FIELD LINE... -> median of that key over the lines
rb_median_of() {
	local f=$1 vals=()
	shift
	for l in "$@"; do
		vals+=("$(rb_kv "$l" "$f")")
	done
	rb_median "${vals[@]}"
}

# rb_fio_job TRACE DIR TARGET [EXTRA_OPTION...]: "ioreel export fio --root TARGET" of TRACE
# into DIR/iolog*, the trace's files created under TARGET (as ioreel's prepare and ceiling do:
# non-zero data up to the extent used), and DIR/job.fio: the exported job file plus the extra
# options in every replaying job. Lists the iologs in DIR/iologs. Returns 1 (reason in
# DIR/note) when the export is not available; a broken job file is a broken run.
rb_fio_job() {
	local trace=$1 d=$2 tgt=$3
	shift 3
	rm -rf "$d"
	mkdir -p "$d"
	if ! command -v fio >/dev/null; then
		echo "fio is not installed" >"$d/note"
		return 1
	fi
	if ! "$IOREEL" export fio "$trace" -o "$d/iolog" --root "$tgt" >"$d/export.log" 2>&1; then
		echo "ioreel export fio failed: $(tail -1 "$d/export.log")" >"$d/note"
		return 1
	fi
	"$RBENCH_BIN/ceiling" --prepare "$trace" "$tgt" || rb_fail "preparing fio's files"
	: >"$d/iologs"
	for f in "$d"/iolog.*; do
		case $f in *.fio) ;; *) echo "$f" >>"$d/iologs" ;; esac
	done
	[ -f "$d/iolog.fio" ] && [ -s "$d/iologs" ] || rb_fail "export wrote no job file or iologs"
	awk -v extra="$*" '
		{ print }
		/^[ \t]*read_iolog[ \t]*=/ { n = split(extra, e, " "); for (i = 1; i <= n; i++) print e[i] }
	' "$d/iolog.fio" >"$d/job.fio"
	grep -q '^read_iolog=' "$d/job.fio" || rb_fail "no read_iolog line in the exported job"
}

# rb_cpu TIMES_FILE LOG CMD...: runs CMD (output to LOG); TIMES_FILE gets the CPU seconds
# (user + system) CMD and its threads used, from the shell's own accounting ("times").
rb_cpu() {
	local tf=$1 log=$2
	shift 2
	# times must run in this subshell itself (not in a pipeline) to see CMD as its child
	("$@" >"$log" 2>&1 || exit 1
	 times >"$tf.raw") || return 1
	awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] }
	     print n }' "$tf.raw" >"$tf"
}
