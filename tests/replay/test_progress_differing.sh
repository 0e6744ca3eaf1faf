#!/bin/bash
# The progress line's "differing N" counts what the summary's "outcomes differing from the
# original" counts: ops that ran and ended otherwise. Ops the replay could not issue (an
# unknown fd) are "not replayed", on the line as in the summary, and not also differing: 20
# reads of an fd never opened and 2 stats that succeeded where the original's failed showed
# "differing 22" while the summary said 2.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || exit 77

{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	# early, so that the lines after show the counts whole
	for i in $(seq 1 20); do
		echo "100 100 $((i * 1000)) $((i * 1000 + 10)) pread64 fd=9 off=0 len=4096 ret=4096"
	done
	echo "100 100 30000 30010 stat path=/d/a ret=-EACCES"
	echo "100 100 31000 31010 stat path=/d/a ret=-EACCES"
	for i in $(seq 1 30); do
		echo "100 100 $((i * 40000)) $((i * 40000 + 10)) pread64 fd=3 off=0 len=4096 ret=4096"
	done
	echo "100 100 1300000 1300010 close fd=3 ret=0"
} | mk t
script -qfec "'$IOREEL' replay '$T/t.reel' --target '$T/tgt' -o '$T/r.reel'" /dev/null \
	>"$T/tty.out" 2>&1 || fail "replay on a pty: $(cat "$T/tty.out")"
grep -q "outcomes differing from the original: 2" "$T/tty.out" &&
	grep -q "ops not replayed: 20" "$T/tty.out" ||
	fail "want 2 differing and 20 not replayed in the summary: $(cat -v "$T/tty.out")"
tr '\r' '\n' <"$T/tty.out" | grep -a " ops (" >"$T/lines"
[ -s "$T/lines" ] || fail "no progress lines: $(cat -v "$T/tty.out")"
last=$(tail -1 "$T/lines")
grep -q "differing 2\b" <<<"$last" ||
	fail "the last progress line does not say 'differing 2', as the summary: $(cat -v <<<"$last")"
grep -q "not replayed 20\b" <<<"$last" ||
	fail "the last progress line does not say 'not replayed 20': $(cat -v <<<"$last")"
echo PASS
