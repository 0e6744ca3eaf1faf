#!/bin/bash
# An async request id (aio_data, io_uring user_data) used again once its request completed,
# the completion reaped by another thread than the submitter (an I/O thread reaping for the
# others): the new submit waits for the old completion. The dispatcher forgot the id at the
# completion, so the new submit could go first; the old completion then reaped the new
# request, and the new completion found none ("completion of a request the replay did not
# submit", an op not replayed). Both ways: submitted again by another thread, and by the
# first submitter; libaio and io_uring; every mode.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
print("100 100 0 1 openat path=/d/a flags=O_RDONLY ret=3")
for tid in (101, 102, 103):
    print(f"100 {tid} 0 0 stat path=/d/a ret=0")
t = 2
for kind, sub in (("aio", 0), ("uring", 22)):
    for again in (102, 100):
        # 100 submits; 101 reaps, after a long run of its own; then `again` submits the
        # same id, and 103 reaps that one
        print(f"100 100 {t} {t} {kind}_submit fd=3 ctx=0x77 aux=1 subop={sub} off=0 len=4096 "
              "ret=1")
        s = t
        t += 1
        for i in range(2000):
            print(f"100 101 {t} {t} stat path=/d/a ret=0")
            t += 1
        print(f"100 101 {s} {t} {kind}_complete fd=3 ctx=0x77 aux=1 subop={sub} off=0 "
              "len=4096 ret=4096")
        t += 1
        print(f"100 {again} {t} {t} {kind}_submit fd=3 ctx=0x77 aux=1 subop={sub} off=4096 "
              "len=4096 ret=1")
        s = t
        t += 1
        print(f"100 103 {s} {t} {kind}_complete fd=3 ctx=0x77 aux=1 subop={sub} off=4096 "
              "len=4096 ret=4096")
        t += 1
print(f"100 100 {t} {t + 1} close fd=3 ret=0")
PY
mk t <"$T/spec"
for mode in afap think original; do
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $mode \
		--speed 1000 -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay $mode (rc $?, 137: hung): $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" &&
		grep -q "ops not replayed: 0" "$T/out" || {
		cat "$T/out"
		fail "timing $mode: a request lost or reaped by the wrong completion"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	# each submit of the id again starts after the completion before it ended
	"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
	python3 - "$T/r.jsonl" <<'PY' || fail "timing $mode: an id submitted again before its completion"
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
for kind in ("aio", "uring"):
    done = sorted(o["end_ns"] for o in ops if o["op"] == kind + "_complete" and o["offset"] == 0)
    again = sorted(o["start_ns"] for o in ops if o["op"] == kind + "_submit" and o["offset"] == 4096)
    assert len(done) == len(again) == 2, (kind, done, again)
    for d, a in zip(done, again):
        assert a >= d, f"{kind}: submitted again at {a}, the completion before ended at {d}"
PY
done
echo PASS
