#!/bin/bash
# A replay's result given as the trace to replay is refused, naming the trace it replayed:
# its ops are the replay's (it replayed "by 2 threads" a trace of 4, on a file set a third
# as large), and nothing is made.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/d/f flags=O_RDONLY ret=3
100 100 20 30 pread64 fd=3 off=0 len=4096 ret=4096
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -q -o "$T/r.reel" || fail "replay"
"$IOREEL" replay "$T/r.reel" --target "$T/tgt2" -q -o "$T/rr.reel" >"$T/out" 2>&1 &&
	fail "a result was replayed"
grep -q "^ioreel: failed to replay $T/r.reel on $T/tgt2: $T/r.reel is the result of a replay of .*/t.reel: replay that trace itself$" "$T/out" ||
	fail "$(cat "$T/out")"
[ ! -e "$T/tgt2" ] && [ ! -e "$T/rr.reel" ] || fail "something was made"
echo PASS
