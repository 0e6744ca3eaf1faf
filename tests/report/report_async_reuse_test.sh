#!/bin/bash
# report: a replay's async completions are paired with their own submits, whatever the order in
# which the result holds them. The result holds each worker's ops in order, but the workers'
# batches interleave: thread B's submit of an id that thread A's request had used (InnoDB
# reuses its io_uring user_data at once) can come before A's completion in the file, and a
# completion can come before its own submit. Paired by id alone, A's completion found B's
# submit or none: "async completions without submission", requests missing from the counts;
# and a completion read before its submit must not take an older submit of its id whose
# completion was lost for its own (a MariaDB libaio replay: p99 585 ms instead of 3.8 ms).
# usage: report_async_reuse_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup async-reuse "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig, rep = [], ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/t",
                 "meta replay.engine sync", "meta replay.timing original"]
for tid in (101, 102, 103):
    for f in (orig, rep):
        f.append("100 %d 10 12 openat path=/db/f%d flags=O_RDWR ret=%d%s" %
                 (tid, tid, tid - 97, " sched=10" if f is rep else ""))
def req(tid, t, dur, aux, replay):
    fd = tid - 97
    a = "fd=%d path=/db/f%d off=0 len=4096 ctx=9 aux=%d subop=2" % (fd, tid, aux)
    s = " sched=%d" % t if replay else ""
    sub = "100 %d %d %d uring_submit %s ret=0%s" % (tid, t, t, a, s)
    com = "100 %d %d %d uring_complete %s ret=4096%s" % (tid, t, t + dur, a, s)
    return sub, com
# a submit of C's id whose completion the capture lost (libaio: beyond 64 events a call):
# C's completions, the replay's read before their submits, are not its
lost = req(103, 50, 0, 2, False)[0]
orig.append(lost)
rep.append(req(103, 50, 0, 2, True)[0])
t = 100
for i in range(50):
    # the original: A's request, then B's with the same id once A's was reaped
    a_sub, a_com = req(101, t, 100, 1, False)
    b_sub, b_com = req(102, t + 150, 50, 1, False)
    c_sub, c_com = req(103, t + 300, 20, 2, False)
    orig += [a_sub, a_com, b_sub, b_com, c_sub, c_com]
    a_sub, a_com = req(101, t, 100, 1, True)
    b_sub, b_com = req(102, t + 150, 50, 1, True)
    c_sub, c_com = req(103, t + 300, 20, 2, True)
    # the result: B's batch between A's submit and A's completion, C's completion first
    rep += [a_sub, b_sub, b_com, a_com, c_com, c_sub]
    t += 1000
open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
PY
mk_pair
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/r.json" || exit 1
python3 - "$T/r.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
fails = []
for run in doc["runs"]:
    w = run["ops_by_type"].get("uring_writev")
    if run["async_unmatched"]:
        fails.append("run %d: %d async completions without submission" %
                     (run["index"], run["async_unmatched"]))
    if not w or w["count"] != 150:
        fails.append("run %d: uring_writev %r, want 150 requests" % (run["index"], w))
        continue
    # each request as long as it was: 20, 50 and 100 us, never another's span
    if w["min_ns"] < 19000 or w["max_ns"] > 101000:
        fails.append("run %d: uring_writev from %d to %d ns, want 20 to 100 us" %
                     (run["index"], w["min_ns"], w["max_ns"]))
for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else "%d checks failed" % len(fails))
sys.exit(1 if fails else 0)
PY
