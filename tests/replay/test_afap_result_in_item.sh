#!/bin/bash
# As fast as possible, an op's result is kept in its own item of the segment and handed to the
# writer in the pause after it (replay_worker.c, worker__retire; replay_stage.c,
# stage__results); an op waits for at most two others in its item, more in items of no op
# ahead of it (replay_deps.c, disp__put_deps). With the lane's preads and pwrites, ops of the
# general path, a close that waits for the reads of three other threads, and async requests
# (--engine io_uring, libaio) in flight across the cuts of tiny segments, each result is its
# own op's, to the field:
# - every thread's results are the trace's ops in its order, with the original's fd, offset,
#   length, path and outcome, and none twice or missing (a slot written by another op, a result
#   left behind in a cut or carried item, a result copied out twice);
# - each result's times are the replay's: scheduled <= start <= end, and a thread's sync ops
#   start in the order it issued them;
# - the pwrites leave the files as the trace implies, the close of the shared fd comes after
#   the three readers' last reads.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
from spec import op
op(201, "openat path=/d/a flags=O_RDWR ret=3")
op(202, "openat path=/d/b flags=O_RDWR ret=4")
for k in range(400):
    op(201, "openat path=/d/s flags=O_RDONLY ret=6")
    for tid, fd in ((201, 3), (202, 4)):
        for i in range(4):
            op(tid, f"pread64 fd={fd} off={(k * 4 + i) % 32 * 4096} len=4096 ret=4096")
        op(tid, f"pwrite64 fd={fd} off={131072 + k * 512} len=512 ret=512")
    for tid in (203, 204, 205):
        op(tid, f"pread64 fd=6 off={k % 8 * 1024} len=1024 ret=1024")
    op(202, "stat path=/d/s ret=0")
    op(201, "close fd=6 ret=0")  # waits for the last reads of 203, 204 and 205
op(201, "fsync fd=3 ret=0")
op(201, "close fd=3 ret=0")
op(202, "close fd=4 ret=0")
PY
mk t <"$T/spec"

# check_fields RESULT ENGINE: the result's ops are the trace's, field by field, per thread
check_fields() {
	python3 - "$T/t.reel" "$1" "$2" <<'PY' || fail "result fields ($2): see above"
import json, os, subprocess, sys
from collections import defaultdict

def per_thread(path):
    out = subprocess.run([os.environ.get("IOREEL", "build/ioreel"), "dump", "--format",
                          "jsonl", path], check=True, capture_output=True, text=True).stdout
    per = defaultdict(list)
    for line in out.splitlines():
        o = json.loads(line)
        per[o["tid"]].append(o)
    return per

orig, res, engine = per_thread(sys.argv[1]), per_thread(sys.argv[2]), sys.argv[3]
keys = ("op", "fd", "offset", "len", "path", "ret")
bad = 0
for tid, ops in orig.items():
    got = res.get(tid, [])
    if len(got) != len(ops):
        print(f"thread {tid}: {len(got)} results for {len(ops)} ops")
        bad += 1
        continue
    prev = -1
    for a, b in zip(ops, got):
        want = {k: a.get(k) for k in keys}
        have = {k: b.get(k) for k in keys}
        if want != have:
            print(f"thread {tid}: want {want}\n          got  {have}")
            bad += 1
            break
        if not b["sched_ns"] <= b["start_ns"] <= b["end_ns"]:
            print(f"thread {tid}: times out of order: {b}")
            bad += 1
            break
        # async requests may go out ahead of a sync op's start; sync ops start in order
        if engine == "sync":
            if b["start_ns"] < prev:
                print(f"thread {tid}: started before the op ahead of it: {b}")
                bad += 1
                break
            prev = b["start_ns"]
print(f"{sum(len(v) for v in orig.values())} ops, {bad} threads wrong")
sys.exit(1 if bad else 0)
PY
}

for seg in 64,1 default; do
	for e in sync io_uring libaio; do
		rm -rf "$T/tgt"
		if [ $seg = default ]; then
			env -u IOREEL_TEST_SEGMENT timeout -k 5 120 "$IOREEL" replay "$T/t.reel" \
				--target "$T/tgt" --timing afap --engine $e -o "$T/r.reel" >"$T/out" 2>&1
		else
			IOREEL_TEST_SEGMENT=$seg timeout -k 5 120 "$IOREEL" replay "$T/t.reel" \
				--target "$T/tgt" --timing afap --engine $e -o "$T/r.reel" >"$T/out" 2>&1
		fi || fail "replay (segments $seg, engine $e, status $?): $(tail -5 "$T/out")"
		grep -q "outcomes differing from the original: 0" "$T/out" ||
			fail "segments $seg, engine $e: outcomes differ: $(cat "$T/out")"
		grep -q "ops not replayed: 0" "$T/out" || fail "ops not replayed: $(cat "$T/out")"
		check_fields "$T/r.reel" $e
		for f in a b; do
			check_size "$T/tgt/d/$f" $((131072 + 400 * 512)) "segments $seg, engine $e"
		done
		if [ $seg = 64,1 ]; then
			"$IOREEL" info "$T/r.reel" | grep -Eq "replay\.segments_cut\s+[1-9]" ||
				fail "segments $seg, engine $e: no segment was cut: $("$IOREEL" info "$T/r.reel")"
		fi
	done
done
echo PASS
