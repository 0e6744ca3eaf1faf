#!/bin/bash
# A trace that yields no op (header only, cut inside its first chunk, or recorded with none)
# says so in one line naming where it ends, the same in info, dump, replay, report, slice and
# export; replay, report, slice and export have nothing to work on and fail instead of
# printing empty tables or writing empty files.
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$MKTRACE" "$dir/whole.reel" --many 40 || fail "mktrace"
"$MKTRACE" "$dir/none.reel" --many 0 || fail "mktrace"

# expect CMD WANT_RC PATTERN TRACE ARGS...: exit status and the one stderr line
expect() {
	local what=$1 want=$2 pat=$3
	shift 3
	"$IOREEL" "$@" > "$dir/out" 2> "$dir/err"
	local rc=$?
	grep -v '^ioreel: replay: ' "$dir/err" > "$dir/err1"
	[ "$rc" = "$want" ] || fail "$what: exit $rc, want $want; stderr: $(cat "$dir/err")"
	[ "$(wc -l < "$dir/err1")" = 1 ] || fail "$what: want one line, got: $(cat "$dir/err")"
	grep -Eq "$pat" "$dir/err1" || fail "$what: '$(cat "$dir/err1")' does not match '$pat'"
}

for n in 16 100; do
	head -c $n "$dir/whole.reel" > "$dir/cut$n.reel"
	t=$dir/cut$n.reel
	pat="truncated at byte $n: no ops before the damage"
	expect "info (cut at $n)" 1 "^ioreel: .*cut$n.reel: $pat\$" info "$t"
	expect "dump (cut at $n)" 1 "^ioreel: damaged trace at byte [0-9]+: $pat\$" dump "$t"
	expect "replay (cut at $n)" 1 "^ioreel: failed to replay .*: $pat: nothing to replay\$" \
		replay "$t" --target "$dir/t" -o "$dir/r.reel"
	[ -e "$dir/r.reel" ] && fail "replay (cut at $n) wrote a result"
	expect "report (cut at $n)" 1 "^ioreel: failed to report on .*: $pat: nothing to compare\$" \
		report "$t"
	# not 'no op started between 0 s and 100 s (its ops start from 0 to 0 s)'
	expect "slice (cut at $n)" 1 "^ioreel: failed to slice .*cut$n.reel: $pat: nothing to slice\$" \
		slice "$t" --to 100 -o "$dir/s.reel"
	[ -e "$dir/s.reel" ] && fail "slice (cut at $n) wrote a slice"
	# not an empty job file and 'run: fio ...'
	expect "export (cut at $n)" 1 "^ioreel: failed to export .*cut$n.reel: $pat: nothing written\$" \
		export fio "$t" -o "$dir/x"
	ls "$dir"/x* > /dev/null 2>&1 && fail "export (cut at $n) wrote $(ls "$dir"/x*)"
done
# whole, but empty: nothing is damaged, and still nothing to replay
"$IOREEL" info "$dir/none.reel" > /dev/null 2>&1 || fail "info of an empty whole trace failed"
expect "replay (no ops)" 1 "^ioreel: failed to replay .*: the trace holds no ops: nothing to replay\$" \
	replay "$dir/none.reel" --target "$dir/t" -o "$dir/r.reel"
expect "slice (no ops)" 1 "^ioreel: failed to slice .*: the trace holds no ops: nothing to slice\$" \
	slice "$dir/none.reel" -o "$dir/s.reel"
expect "export (no ops)" 1 "^ioreel: failed to export .*: the trace holds no ops: nothing written\$" \
	export fio "$dir/none.reel" -o "$dir/x"
ls "$dir"/x* > /dev/null 2>&1 && fail "export (no ops) wrote $(ls "$dir"/x*)"
echo PASS
