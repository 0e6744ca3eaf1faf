#!/bin/bash
# A slice of a damaged trace is a whole file, but its window may lack what the damage lost:
# its head meta says so (slice.source_damage, slice.source_ops_lost, slice.window_ops_lost),
# and info, replay and report show it. Before, 'ioreel info' of such a slice said "lost
# events 0", no damage, and its replay nothing: 16,384 ops of its window gone silently.
# The shipped PostgreSQL trace with 8 bytes flipped at byte 150,000 (inside an ops chunk
# whose ops started in 0.5 s .. 2.5 s); how many ops that lost is counted here apart, from
# the whole trace and its slice of the same window; a window elsewhere says that none of the
# lost ops was in it; a truncated trace (no footer, no index) says how many is unknown.
source "$(dirname "$0")/lib.sh"

PG=$HERE/../../samples/postgres/pgbench.reel
python3 - "$PG" "$T/flip.reel" <<'PY' || fail "flip"
import sys
d = bytearray(open(sys.argv[1], "rb").read())
for i in range(150000, 150008):
    d[i] ^= 0xff
open(sys.argv[2], "wb").write(d)
PY
meta() { # FILE KEY: the value of a meta key as info prints it
	"$IOREEL" info "$1" 2>/dev/null | sed -n "s/^  $2 *\(.*\)/\1/p"
}

# ops_of SLICE-STDERR: the ops a slice wrote, from its "wrote OUT: N of M ops" line
ops_of() { sed -n 's/^ioreel: wrote .*: \([0-9]*\) of [0-9]* ops.*/\1/p' "$1"; }
"$IOREEL" slice "$PG" --from 0.5 --duration 2 -o "$T/w.reel" 2>"$T/werr" || fail "slice of the whole trace"
"$IOREEL" slice "$T/flip.reel" --from 0.5 --duration 2 -o "$T/s5.reel" 2>"$T/err"
[ $? = 1 ] || fail "slice of the damaged trace: want exit 1: $(cat "$T/err")"
LOST=$(($(ops_of "$T/werr") - $(ops_of "$T/err")))
[ "$LOST" -gt 0 ] || fail "the flip lost no op of the window: $(cat "$T/werr" "$T/err")"
echo "the flip lost $LOST ops of the window 0.5 s .. 2.5 s"
grep -q "$LOST ops lost, up to $LOST of them in the window; .*slice.source_damage" "$T/err" ||
	fail "slice: the window's share not said: $(cat "$T/err")"
[ "$(meta "$T/s5.reel" slice.source_ops_lost)" = $LOST ] ||
	fail "slice.source_ops_lost: $(meta "$T/s5.reel" slice.source_ops_lost)"
[ "$(meta "$T/s5.reel" slice.window_ops_lost)" = $LOST ] ||
	fail "slice.window_ops_lost: $(meta "$T/s5.reel" slice.window_ops_lost)"
"$IOREEL" info "$T/s5.reel" >"$T/info" 2>&1 || fail "info of the slice: exit $? (the slice itself is whole)"
grep -q "^source damage the trace sliced was damaged: 1 damaged region from byte [0-9]* of $T/flip.reel: $LOST ops lost; up to $LOST of them started in the window" \
	"$T/info" || fail "info: no source damage line: $(grep -i damage "$T/info")"
"$IOREEL" info --json "$T/s5.reel" | python3 -c '
import json, sys
d, lost = json.load(sys.stdin), int(sys.argv[1])
sys.exit(0 if d["slice_source_ops_lost"] == lost and d["slice_window_ops_lost"] == lost else 1)' "$LOST" ||
	fail "info --json: slice_source_ops_lost / slice_window_ops_lost"

timeout -s KILL 120 "$IOREEL" replay "$T/s5.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" \
	>"$T/out" 2>&1 || fail "replay of the slice: $(tail -3 "$T/out")"
grep -q "^  SLICE OF A DAMAGED TRACE: the window may lack ops, not replayed: .*$LOST ops lost" "$T/out" ||
	fail "replay summary: nothing said: $(head -5 "$T/out")"
"$IOREEL" report "$T/s5.reel" "$T/r.reel" >"$T/rep" 2>&1
grep -A2 "#0 original: $T/s5.reel" "$T/rep" | grep -q "a slice of a damaged trace, it lacks what that lost: .*$LOST ops lost" ||
	fail "report runs: nothing said: $(grep -A3 '#0' "$T/rep")"
grep -q "^  - the original is a slice of a damaged trace, and $LOST ops that started in its window were lost" "$T/rep" ||
	fail "report verdict: nothing said: $(sed -n '/^verdict/,$p' "$T/rep")"

# a window the lost chunk's ops did not start in: said to lack none of them
"$IOREEL" slice "$T/flip.reel" --from 4.5 --duration 2 -o "$T/s6.reel" 2>/dev/null
[ "$(meta "$T/s6.reel" slice.window_ops_lost)" = 0 ] ||
	fail "a window away from the damage: slice.window_ops_lost $(meta "$T/s6.reel" slice.window_ops_lost)"
meta "$T/s6.reel" slice.source_damage | grep -q "$LOST ops lost; none of them in the window" ||
	fail "a window away from the damage: $(meta "$T/s6.reel" slice.source_damage)"

# truncated: no footer, so neither how many ops nor when
sz=$(stat -c %s "$PG")
head -c $((sz / 2)) "$PG" >"$T/cut.reel"
"$IOREEL" slice "$T/cut.reel" --from 0 --duration 1 -o "$T/c.reel" 2>/dev/null
[ "$(meta "$T/c.reel" slice.source_ops_lost)" = unknown ] &&
	[ "$(meta "$T/c.reel" slice.window_ops_lost)" = unknown ] ||
	fail "truncated: $(meta "$T/c.reel" slice.source_ops_lost) / $(meta "$T/c.reel" slice.window_ops_lost)"

# a whole trace's slice has none of it
! "$IOREEL" info "$T/w.reel" | grep -q "slice.source\|source damage" || fail "a whole trace's slice says damage"
echo "ok: slice_damaged"
