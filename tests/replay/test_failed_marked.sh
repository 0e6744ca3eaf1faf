#!/bin/bash
# A replay that fails part way (here: more threads alive at once than the replayer's 4,096
# workers) keeps its result of what it did, marked as not whole: meta replay.failed (the
# reason) and replay.interrupted_after_ops, so that the report says FAILED and does not
# compare it as a whole run (it read as a normal replay with an "openat 35258x").
source "$(dirname "$0")/lib.sh"

python3 -c '
n = 4100
for r in range(2):
    for t in range(n):
        s = 1000 + r * 100000 + t
        print("100 %d %d %d newfstatat path=/d/f ret=0" % (1000 + t, s, s + 1))
' | mk t
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -o "$T/r.reel" >"$T/out" 2>&1 &&
	fail "a replay of 4,100 live threads succeeded"
grep -q "^ioreel: failed to replay .*: cannot start a worker thread for tid [0-9]* (max 4096 threads)$" \
	"$T/out" || fail "replay said: $(cat "$T/out")"
"$IOREEL" info "$T/r.reel" >"$T/info" || fail "the result is unreadable"
grep -q "^  replay.failed *cannot start a worker thread" "$T/info" || fail "no replay.failed meta"
grep -q "^  replay.interrupted_after_ops *[0-9]" "$T/info" || fail "no replay.interrupted_after_ops"
"$IOREEL" report "$T/t.reel" "$T/r.reel" >"$T/rep" || fail "report: $(cat "$T/rep")"
grep -q "FAILED after [0-9]* ops of the trace" "$T/rep" &&
	grep -q "replay on .* failed after [0-9]* of the original's 8200 ops (cannot start" "$T/rep" ||
	fail "the report does not say the replay failed: $(cat "$T/rep")"
echo PASS
