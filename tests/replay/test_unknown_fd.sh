#!/bin/bash
# An op on an fd the replay never saw opened, with no path to open it by, gets a one-line
# message naming it; the rest of the trace still replays. An fd from before the capture
# whose ops carry the path is opened lazily.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=0 len=4096 ret=4096
100 100 200 210 pread64 fd=9 off=0 len=4096 ret=4096
100 100 300 310 pread64 fd=3 off=4096 len=4096 ret=4096
100 100 400 410 pread64 fd=7 path=/d/old off=8192 len=4096 ret=4096
100 100 500 510 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>"$T/err" ||
	fail "replay failed: $(cat "$T/err")"
grep -q "cannot replay pread64.*fd 9.*unknown fd" "$T/err" || {
	cat "$T/err"
	fail "no message about fd 9"
}
[ "$(grep -c 'cannot replay' "$T/err")" = 1 ] || fail "more than one message"
grep -q "1 not replayed: unknown fd" "$T/out" || fail "not counted in the summary"
n=$("$IOREEL" dump --format jsonl "$T/r.reel" | wc -l)
[ "$n" = 5 ] || fail "result has $n ops, want 5 (all but the unknown fd's)"
# the pre-capture fd 7 was opened lazily from its path, which was prepared (12288 bytes)
[ "$(stat -c %s "$T/tgt/d/old")" = 12288 ] || fail "d/old not prepared"
"$IOREEL" dump --format jsonl "$T/r.reel" | grep '"fd":7' | grep -q '"ret":4096' ||
	fail "lazily opened fd 7 did not read"
echo PASS
