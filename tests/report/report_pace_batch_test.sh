#!/bin/bash
# report: the submit records of one replayed syscall (an io_submit of 8 iocbs: replay_batch.c,
# alike in start, end and schedule) held their thread once. Here each batch was due every
# 2 ms; the replay woke up 300 us late for each, and its io_submit took 200 us: all 8 requests
# are 300 us late, a late wake-up, and the thread kept the app's pace. Taken one after the
# other, each record counted the syscall of the ones before it as backlog (its thread busy
# with them), so that 7 of 8 put their lateness on the target: "waiting for the previous op"
# p99 300 us, wake-up lateness p50 0.
# usage: report_pace_batch_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup pace-batch "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig, rep = [], ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/batch",
                 "meta replay.engine sync", "meta replay.timing original"]
for f in (orig, rep):
    f.append("100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3" +
             (" sched=0" if f is rep else ""))
for b in range(100):
    t = 1000 + 2000 * b  # the batch's schedule, us
    rt = t + 300  # the replay's io_submit: 300 us late, 200 us long
    for i in range(8):
        n = b * 8 + i
        sub = "aio_submit fd=3 path=/db/data off=%d len=4096 ret=8 ctx=7 aux=%d subop=0" % (
            n * 4096, n)
        orig.append("100 100 %d %d %s" % (t, t, sub))
        rep.append("100 100 %d %d %s sched=%d" % (rt, rt + 200, sub, t))
    for i in range(8):
        n = b * 8 + i
        com = "aio_complete fd=3 path=/db/data off=%d len=4096 ret=4096 ctx=7 aux=%d subop=0" % (
            n * 4096, n)
        orig.append("100 100 %d %d %s" % (t, t + 500, com))
        rep.append("100 100 %d %d %s sched=%d" % (rt, rt + 500, com, t + 500))
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
if lat["pace_not_kept"]:
    fails.append("want the pace kept: %r" % lat)
if lat["backlog_p99_ns"] > 10000:
    fails.append("backlog p99 %d ns, want ~0: one syscall held the thread once" %
                 lat["backlog_p99_ns"])
if lat["wake_p50_ns"] < 250000:
    fails.append("wake-up lateness p50 %d ns, want the 300 us of every request" %
                 lat["wake_p50_ns"])
for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else "%d checks failed" % len(fails))
sys.exit(1 if fails else 0)
PY
