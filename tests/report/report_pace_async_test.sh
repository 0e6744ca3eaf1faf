#!/bin/bash
# report: a replayed async request's reaping keeps its thread busy until the request is done.
# The original submits a libaio read, reaps it 200 us later and submits the next 10 us after;
# the replay's reads take 2 ms, so each reaping ends late and the next submission with it:
# the target could not keep the app's pace (backlog), and the replayer never woke up late.
# The reaping was left out of the thread's busy time, and that lateness taken for late
# wake-ups: "fell behind, its latencies are doubtful" on a slower disk.
# usage: report_pace_async_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup pace-async "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig, rep = [], ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/slowaio",
                 "meta replay.engine sync", "meta replay.timing original"]
for f in (orig, rep):
    f.append("100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3" +
             (" sched=1" if f is rep else ""))
t, rt = 100, 100  # the original's and the replay's clocks, us
for i in range(300):
    sub = "aio_submit fd=3 path=/db/data off=%d len=4096 ret=0 ctx=7 aux=%d subop=0" % (
        i * 4096, i)
    com = "aio_complete fd=3 path=/db/data off=%d len=4096 ret=4096 ctx=7 aux=%d subop=0" % (
        i * 4096, i)
    orig.append("100 100 %d %d %s" % (t, t, sub))
    orig.append("100 100 %d %d %s" % (t, t + 200, com))
    rt = max(rt, t) + 5  # the thread free: starts 5 us after it
    rep.append("100 100 %d %d %s sched=%d" % (rt, rt, sub, t))
    rep.append("100 100 %d %d %s sched=%d" % (rt, rt + 2000, com, t + 200))
    rt += 2000
    t += 210
open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
PY
mk_pair
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/r.json" || exit 1
python3 - "$T/r.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
lat = doc["runs"][1]["lateness"]
fails = []
if not lat["pace_not_kept"] or lat["fell_behind"]:
    fails.append("want pace not kept, not fell behind: %r" % lat)
if lat["wake_p99_ns"] > 100000:
    fails.append("wake-up lateness p99 %d ns, want under 0.1 ms" % lat["wake_p99_ns"])
if lat["backlog_p99_ns"] < 0.95 * lat["p99_ns"]:
    fails.append("backlog p99 %d ns, lateness p99 %d ns: want the backlog to be it all" %
                 (lat["backlog_p99_ns"], lat["p99_ns"]))
for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else "%d checks failed" % len(fails))
sys.exit(1 if fails else 0)
PY
