#!/bin/bash
# The progress line counts the ops the workers will do: not the non-file ones, nor those the
# dispatcher counts as not replayed (an old trace's writes through /dev/stdout's fd: a file
# the trace does not name). Counted as still to do, they kept "N/M ops" short of its total
# to the end, and the time left, at the pace so far, as if they were: 60 of them beside 32
# ops replayed showed "6/92 ops", "left 3.3s", 0.2 s into a 1.3 s replay. Nor were they
# "differing" there, as they are not in the summary.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || exit 77

{
	echo "100 100 0 1 openat path=/dev/stdout flags=O_WRONLY|O_CREAT|O_TRUNC mode=0666 ret=4 kind=reg aux=1"
	for i in $(seq 1 58); do
		echo "100 100 $((i + 1)) $((i + 2)) write fd=4 path=/dev/stdout off=$(((i - 1) * 100)) len=100 ret=100"
	done
	echo "100 100 70 71 close fd=4 path=/dev/stdout ret=0"
	echo "100 100 100 110 openat path=/d/a flags=O_RDONLY ret=3"
	for i in $(seq 1 30); do
		echo "100 100 $((i * 40000)) $((i * 40000 + 10)) pread64 fd=3 off=0 len=4096 ret=4096"
	done
	echo "100 100 1300000 1300010 close fd=3 ret=0"
} | mk t
script -qfec "'$IOREEL' replay '$T/t.reel' --target '$T/tgt' -T think -o '$T/r.reel' -q" /dev/null \
	>"$T/tty.out" 2>&1 || fail "replay on a pty: $(cat "$T/tty.out")"
tr '\r' '\n' <"$T/tty.out" | grep -a "ops (" >"$T/lines"
[ -s "$T/lines" ] || fail "no progress lines: $(cat -v "$T/tty.out")"
grep -qv "/32 ops" "$T/lines" && fail "want 32 ops to do (the 60 through /dev/stdout not replayed): $(cat -v "$T/lines")"
# counted as not replayed, as the summary counts them, not as differing outcomes
grep -q "differing" "$T/lines" && fail "ops not replayed shown as differing: $(cat -v "$T/lines")"
grep -q "not replayed 60\b" <<<"$(tail -1 "$T/lines")" ||
	fail "the last line does not say 'not replayed 60': $(tail -1 "$T/lines" | cat -v)"
# the last line: most of the replay done, little left
last=$(tail -1 "$T/lines")
el=$(sed -n 's/.*elapsed \([0-9.]*\)s.*/\1/p' <<<"$last")
left=$(sed -n 's/.*left \([0-9.]*\)s.*/\1/p' <<<"$last")
[ -n "$el" ] || fail "no elapsed time: $(cat -v <<<"$last")"
awk -v e="$el" -v l="${left:-0}" 'BEGIN { exit !(e < 0.6 || l < e) }' ||
	fail "time left ${left}s, ${el}s in, with most of the replay done: $(cat -v <<<"$last")"
echo PASS
