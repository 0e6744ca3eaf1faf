#!/bin/bash
# As fast as possible, a thread far behind the others does not keep them idle to the end of
# every segment: once a worker with a full share has run out, the others get 2 % of the
# segment's time so far, then the segment is cut short and the straggler's rest carried over
# (replay_stage.c, stage__wait). Here two threads have as many ops each, interleaved, but one
# reads 4 KiB and the other 1 MiB at a time (~50x slower): without the straggler cut each
# segment ends only when the slow thread is done (its 90 % left is more than the cut for
# "little left" allows). Checked: segments are cut for the straggler (meta
# replay.segments_cut_straggler); the fast thread, no longer held back segment by segment,
# ends well before the slow one (with cuts turned off it ends with it, as each segment
# waits for the slow thread's part); every op is issued with its original outcome.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
from spec import op
op(201, "openat path=/d/small flags=O_RDONLY ret=3")
op(202, "openat path=/d/big flags=O_RDONLY ret=4")
for k in range(3000):
    op(201, f"pread64 fd=3 off={k % 64 * 4096} len=4096 ret=4096")
    op(202, f"pread64 fd=4 off={k % 8 * 1048576} len=1048576 ret=1048576")
op(201, "close fd=3 ret=0")
op(202, "close fd=4 ret=0")
PY
mk t <"$T/spec"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r0.reel" >/dev/null 2>&1 ||
	fail "prepare"

# fast_end RESULT: when the fast thread's (201) last read ended, in % of the replay's span
fast_end() {
	"$IOREEL" dump --format csv "$1" | awk -F, '$1 == "pread64" {
		if ($3 == 201) fast = $5; if ($5 > end) end = $5 }
		END { printf "%.0f", 100 * fast / end }'
}

IOREEL_TEST_SEGMENT=2000,10 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap \
	-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || { cat "$T/out"; fail "outcomes differ"; }
check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
n=$("$IOREEL" info "$T/r.reel" | awk '$1 == "replay.segments_cut_straggler" { print $2 }')
[ "${n:-0}" -gt 0 ] || { "$IOREEL" info "$T/r.reel" | grep replay. >&2; fail "no segment cut for the straggler"; }

IOREEL_TEST_SEGMENT=2000,0 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap \
	-o "$T/rn.reel" >"$T/outn" 2>&1 || fail "replay without cuts: $(cat "$T/outn")"
n0=$("$IOREEL" info "$T/rn.reel" | awk '$1 == "replay.segments_cut_straggler" { print $2 }')
[ "${n0:-0}" = 0 ] || fail "cuts turned off, yet $n0 straggler cuts"
a=$(fast_end "$T/r.reel") b=$(fast_end "$T/rn.reel")
echo "the fast thread ends at $a % of the span with straggler cuts ($n), at $b % without"
[ "$b" -ge 95 ] || fail "without cuts the fast thread ended at $b % of the span, before the slow one"
[ "$a" -le $((b - 10)) ] || fail "straggler cuts did not let the fast thread go on ($a % vs $b %)"
echo PASS
