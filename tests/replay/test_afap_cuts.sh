#!/bin/bash
# As fast as possible, a segment is cut short once a worker has run out and little is left
# to the others: they stop at their next op and carry the rest over to the next segment
# (replay_stage.c, stage__maybe_cut, stage__carry). With tiny segments cut whenever a worker
# runs out first (IOREEL_TEST_SEGMENT, a test knob), hundreds of cuts land anywhere, also
# while a worker waits on another thread's op that the cut leaves for the next segment:
# - the replay ends (no worker left waiting on a stopped one) and issues exactly the trace's
#   ops, each thread's in order, each with its original outcome: cross-thread order holds
#   across cuts (opens before another thread's reads, closes after them);
# - the summary, the report and the meta say how many segments were cut and how many ops
#   were carried over; with cuts turned off there are none.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
from spec import op
op(201, "openat path=/d/a flags=O_RDONLY ret=3")
for k in range(3000):
    # thread 202 opens fd 5, thread 203 reads it, then 202 closes it: each op waits on the
    # other thread's
    op(202, "openat path=/d/x flags=O_RDONLY ret=5")
    for i in range(8):
        op(201, f"pread64 fd=3 off={(k * 8 + i) % 64 * 4096} len=4096 ret=4096")
    op(203, f"pread64 fd=5 off={k % 16 * 4096} len=4096 ret=4096")
    op(203, "stat path=/d/a ret=0")
    op(203, f"pread64 fd=5 off={(k + 1) % 16 * 4096} len=4096 ret=4096")
    op(202, "stat path=/d/x ret=0")
    op(202, "close fd=5 ret=0")
    # short-lived threads, one after the other: their workers are handed on
    if k % 300 == 0:
        op(300 + k // 300, "stat path=/d/x ret=0")
op(201, "close fd=3 ret=0")
PY
mk t <"$T/spec"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r0.reel" >/dev/null 2>&1 ||
	fail "prepare"

# replay_cut ENV OUT: replays with IOREEL_TEST_SEGMENT=ENV, checks ops and outcomes, prints
# "CUTS CARRIED" from the result's meta
replay_cut() {
	IOREEL_TEST_SEGMENT=$1 timeout -k 5 100 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" \
		--timing afap -o "$T/$2.reel" >"$T/$2.out" 2>&1 ||
		fail "replay (IOREEL_TEST_SEGMENT=$1, status $?): $(tail -5 "$T/$2.out")"
	grep -q "outcomes differing from the original: 0" "$T/$2.out" || {
		cat "$T/$2.out" >&2
		fail "cross-thread order broken across cuts (IOREEL_TEST_SEGMENT=$1)"
	}
	grep -q "ops not replayed: 0" "$T/$2.out" || fail "ops not replayed: $(cat "$T/$2.out")"
	check_same_ops "$T/t.reel" "$T/$2.reel" >/dev/null
	"$IOREEL" info "$T/$2.reel" >"$T/$2.info" 2>&1 || fail "info"
	python3 - "$T/$2.info" <<'PY' || fail "no segment meta in $2: $(cat "$T/$2.info")"
import re, sys
info = open(sys.argv[1]).read()
v = [re.search(rf"replay\.{k}\s+(\d+)", info) for k in ("segments", "segments_cut", "carried_ops")]
assert all(v), "meta missing"
print(*(int(m.group(1)) for m in v))
PY
}

read -r seg cuts carried < <(replay_cut 64,1 cut) || exit 1
echo "cut: $seg segments, $cuts cut short, $carried ops carried over"
[ "$seg" -ge 300 ] || fail "want >= 300 segments of 64 items, got $seg"
[ "$cuts" -ge 100 ] || fail "want >= 100 cut segments, got $cuts"
[ "$carried" -gt 0 ] || fail "cut segments carried no ops over"
grep -q "$cuts segments\? cut short .* carried $carried ops over" "$T/cut.out" ||
	fail "summary does not say the cuts: $(cat "$T/cut.out")"
"$IOREEL" report "$T/t.reel" "$T/cut.reel" >"$T/report" 2>&1 || fail "report: $(cat "$T/report")"
grep -q "$cuts of them cut short once a thread had run out: $carried ops carried over" \
	"$T/report" || fail "report does not say the cuts: $(cat "$T/report")"

read -r seg cuts carried < <(replay_cut 64,0 nocut) || exit 1
echo "no cut: $seg segments, $cuts cut short"
[ "$seg" -ge 300 ] && [ "$cuts" = 0 ] && [ "$carried" = 0 ] ||
	fail "cuts turned off, yet $cuts cut and $carried carried in $seg segments"
! grep -q "cut short" "$T/nocut.out" || fail "summary speaks of cuts that did not happen"

echo PASS
