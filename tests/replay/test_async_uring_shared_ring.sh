#!/bin/bash
# Two threads of one process share an io_uring (as fio's or an app's threads may), so their
# completions are taken by whichever of them waits in the kernel, by one right after its
# submission, or by the context's reaper thread, one at a time: each completion is taken
# once and none is left behind. 2 x 3000 requests, 4 in flight per thread, reads of cached
# pages (done in their submission) and writes (done later, by the kernel's workers). A
# completion lost hangs its record (killed after a minute); one taken twice shows as a
# request named by two records, or by none.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
n, depth = 3000, 4
print("100 100 0 1 openat path=/d/a flags=O_RDWR ret=3")
print("100 100 2 3 pread64 fd=3 path=/d/a off=4190208 len=4096 ret=4096")
for tid, base in ((100, 0), (101, 1 << 20)):
    t = 10
    for i in range(n + depth):
        if i < n:
            aux = base + i + 1
            sub, kind = (22, 4096) if i % 2 else (23, 4096)
            off = (base // 512 + (i % 256)) * 4096
            print(f"100 {tid} {t} {t} uring_submit fd=3 ctx=0x77 aux={aux} subop={sub} "
                  f"off={off} len=4096 ret=1")
        if i >= depth:
            j = i - depth
            aux = base + j + 1
            sub = 22 if j % 2 else 23
            off = (base // 512 + (j % 256)) * 4096
            print(f"100 {tid} {t - 10 * depth} {t + 1} uring_complete fd=3 ctx=0x77 aux={aux} "
                  f"subop={sub} off={off} len=4096 ret=4096")
        t += 10
print(f"100 100 {t + 100} {t + 101} close fd=3 ret=0")
PY
mk t <"$T/spec"
for timing in afap original; do
	replay_as_traced $timing "completions lost or mismatched"
	"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
	python3 - "$T/r.jsonl" <<'PY' || fail "timing $timing: completions"
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
sub = sorted(o["aux"] for o in ops if o["op"] == "uring_submit")
com = sorted(o["aux"] for o in ops if o["op"] == "uring_complete")
assert len(sub) == 6000, len(sub)
assert com == sub, "a request named by two completion records, or by none"
PY
	echo "timing $timing: 6000 completions, each taken once"
done
echo PASS
