#!/bin/bash
# An fd closed once another thread has reaped an io_uring request on it: the close waits for
# the reaping. io_uring looks the fd up when it issues the request, which for an fsync (any
# request it hands to a worker) comes after the submit returned; the close waited only for
# the submit, so it could close the fd first, and the request failed with EBADF where the
# original's succeeded.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
print("100 101 0 0 stat path=/d/a ret=0")
t = 1
for i in range(20):
    # 100 opens, submits an fsync and closes once 101 has reaped it
    print(f"100 100 {t} {t + 1} openat fd=-100 path=/d/a flags=O_RDWR ret=3")
    print(f"100 100 {t + 2} {t + 2} uring_submit fd=3 ctx=9 aux={i} subop=3 ret=1")
    print(f"100 101 {t + 2} {t + 5} uring_complete fd=3 ctx=9 aux={i} subop=3 ret=0")
    print(f"100 100 {t + 6} {t + 7} close fd=3 ret=0")
    t += 10
PY
mk t <"$T/spec"
for mode in afap think original; do
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $mode \
		-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay $mode (rc $?, 137: hung): $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" &&
		grep -q "ops not replayed: 0" "$T/out" || {
		cat "$T/out"
		fail "timing $mode: an fsync failed (its fd closed before it was issued)"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	# each close starts after the reaping before it ended
	"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
	python3 - "$T/r.jsonl" <<'PY' || fail "timing $mode: a close before the reaping"
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
reaped = sorted(o["end_ns"] for o in ops if o["op"] == "uring_complete")
closed = sorted(o["start_ns"] for o in ops if o["op"] == "close")
assert len(reaped) == len(closed) == 20, (len(reaped), len(closed))
for r, c in zip(reaped, closed):
    assert c >= r, f"closed at {c}, the request on the fd reaped at {r}"
PY
done
echo PASS
