#!/bin/bash
# report: the async requests' mean number in flight (queue depth) of each run, the original's
# beside a replay's. The original keeps 8 libaio reads of 100 us in flight (800 of them, 8 at
# a time); the replay only 2 (its reads take 400 us, 2 at a time). Little's law over the span
# from the first submission to the last completion: 8.0 and 2.0, in the text and the JSON.
# The report had no such number: a replay that kept a quarter of the queue depth, which
# changes what the storage sees, showed only in each request's own latency.
# usage: report_async_depth_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup async-depth "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig, rep = [], ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/t",
                 "meta replay.engine sync", "meta replay.timing afap"]
for f in (orig, rep):
    f.append("100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3" +
             (" sched=1" if f is rep else ""))

def req(out, i, sub, done, sched=None):
    s = "" if sched is None else " sched=%d" % sched
    a = "fd=3 path=/db/data off=%d len=4096 ctx=7 aux=%d subop=0" % (i * 4096, i)
    out.append("100 100 %d %d aio_submit %s ret=0%s" % (sub, sub, a, s))
    out.append("100 100 %d %d aio_complete %s ret=4096%s" % (sub, done, a, s))

# original: 8 in flight at all times, each 100 us: request i submitted at 1000 + (i // 8) * 100
for i in range(800):
    req(orig, i, 1000 + (i // 8) * 100, 1000 + (i // 8) * 100 + 100)
# replay: 2 in flight, each 400 us
for i in range(800):
    req(rep, i, 1000 + (i // 2) * 400, 1000 + (i // 2) * 400 + 400, sched=1000)
open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
PY
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/r.txt" 2>&1 || { cat "$T/r.txt"; exit 1; }
fails=0
grep -q "800 async requests, 8.0 in flight on average over their span$" "$T/r.txt" ||
	{ echo "FAIL: the original's depth, want 8.0"; fails=1; }
grep -q "800 async requests, 2.0 in flight on average over their span (the original: 8.0)" \
	"$T/r.txt" || { echo "FAIL: the replay's depth beside the original's, want 2.0 (8.0)"; fails=1; }
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/r.json" || exit 1
python3 - "$T/r.json" <<'PY' || fails=1
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
got = [(r["async_requests"], r["async_in_flight"]) for r in runs]
if got != [(800, 8.0), (800, 2.0)]:
    print("FAIL: JSON async_requests, async_in_flight: %r, want [(800, 8.0), (800, 2.0)]" % got)
    sys.exit(1)
PY
[ $fails = 0 ] || { grep -B1 -A1 "async requests" "$T/r.txt"; exit 1; }
echo PASS
