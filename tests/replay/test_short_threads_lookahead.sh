#!/bin/bash
# With the original timing the dispatcher must read the trace far enough ahead of the
# schedule for an op that took long: a recorder writes ops in end order, so a 300 ms fsync
# comes 300 ms late in the file. A trace of thousands of short-lived threads (a build, a shell
# script) but only three alive at once must get the read-ahead of three threads, not of
# thousands (the queues are sized by the threads alive at once): the fsync starts on time
# although a busy thread (10 k preads/s) fills its queue meanwhile.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
ops = []  # (end_us, line)
ops.append((10, "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"))
ops.append((10, "100 101 0 10 openat path=/d/b flags=O_RDWR ret=4"))
# thread 100: 10 k preads/s for 2 s
for i in range(20000):
    t = 100 + i * 100
    ops.append((t + 5, f"100 100 {t} {t + 5} pread64 fd=3 off={(i % 16) * 4096} len=4096 ret=4096"))
# thread 101: an fsync from 1.0 s to 1.3 s: in the file at 1.3 s
ops.append((1300000, "100 101 1000000 1300000 fsync fd=4 ret=0"))
# 3000 processes of one stat each, one after the other
for i in range(3000):
    t = 50 + i * 600
    ops.append((t + 5, f"{1000 + i} {1000 + i} {t} {t + 5} stat path=/d/a ret=0"))
for _, line in sorted(ops, key=lambda o: o[0]):
    print(line)
PY
mk t <"$T/spec"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" -q >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
python3 - "$T/r.jsonl" <<'PY' || fail "the fsync started late: the dispatcher did not read far enough ahead"
import json, sys
f = [json.loads(l) for l in open(sys.argv[1]) if '"op":"fsync"' in l]
assert len(f) == 1, f"{len(f)} fsyncs replayed"
late = f[0]["start_ns"] - f[0]["sched_ns"]
print(f"fsync lateness {late / 1e6:.2f} ms")
assert late < 50e6, f"fsync {late / 1e6:.1f} ms late"
PY
echo PASS
