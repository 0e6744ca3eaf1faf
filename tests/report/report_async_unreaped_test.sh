#!/bin/bash
# report: async requests whose completion the trace does not hold are counted and named, not
# left out without a word. QEMU's aio=native reaps its libaio requests from the AIO ring in
# user space, never through io_getevents: a recording of `qemu-img bench -i native` held
# 20,000 aio submits and no completion, and the report read "175 ops measured, 790 us of I/O"
# with nothing about them. Here the original has 100 libaio preadv submits never completed,
# 10 completed, and 3 whose submission failed (never in flight: not counted); the replay the
# same. Each run's summary says "100 async requests with no completion in the trace", the
# verdict says it first (100 of the original's 110), and the JSON has async_unreaped.
# usage: report_async_unreaped_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup async-unreaped "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig, rep = [], ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/t",
                 "meta replay.engine sync", "meta replay.timing original"]
for f in (orig, rep):
    s = " sched=1" if f is rep else ""
    f.append("100 100 0 10 openat path=/img/disk.raw flags=O_RDONLY ret=3" + s)
    for i in range(5):
        f.append("100 100 %d %d pread64 fd=3 path=/img/disk.raw off=%d len=512 ret=512%s"
                 % (100 + i * 10, 105 + i * 10, i * 512, s))
    t = 1000
    for i in range(113):
        a = "fd=3 path=/img/disk.raw off=%d len=4096 ctx=7 aux=%d subop=7" % (i * 4096, i)
        ret = "-11" if i >= 110 else "1"
        sched = " sched=%d" % t if f is rep else ""
        f.append("100 100 %d %d aio_submit %s ret=%s%s" % (t, t, a, ret, sched))
        if 100 <= i < 110:
            f.append("100 100 %d %d aio_complete %s ret=4096%s" % (t, t + 50, a, sched))
        t += 20
open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
PY
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/r.txt" 2>&1 || { cat "$T/r.txt"; exit 1; }
fails=0
n=$(grep -c "^     100 async requests with no completion in the trace, not measured (aio_preadv 100)$" \
	"$T/r.txt")
[ "$n" = 2 ] || { echo "FAIL: each run's summary names its 100 requests never completed (found $n)"; fails=1; }
first=$(sed -n '/^verdict:/{n;p;q}' "$T/r.txt")
case $first in
*"100 of the original's 110 async requests have no completion in the trace (aio_preadv 100)"*"io_getevents"*) ;;
*) echo "FAIL: the verdict's first line: $first"; fails=1 ;;
esac
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/r.json" || exit 1
python3 - "$T/r.json" <<'PY' || fails=1
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
got = [(r["async_requests"], r["async_unreaped"]) for r in runs]
if got != [(10, 100), (10, 100)]:
    print("FAIL: JSON async_requests, async_unreaped: %r, want [(10, 100), (10, 100)]" % got)
    sys.exit(1)
PY
[ $fails = 0 ] || { cat "$T/r.txt"; exit 1; }
echo PASS
