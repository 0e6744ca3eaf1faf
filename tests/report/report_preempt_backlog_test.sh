#!/bin/bash
# report: a thread in a backlog (the target too slow for the app's pace) never sleeps between
# its ops, so a preemption there is no late wake-up, and must not be carried as one through
# the rest of the backlog. In one run 3 preemptions totalling 2.7 ms became "wake-up lateness
# max 3.49 ms ** FELL BEHIND **" beside a 16.7 s backlog: each one was carried forward, and
# added up, in every later op's wake-up lateness until the thread caught up.
# Here one thread of 2000 fdatasyncs due every 1 ms, 100 us each in the original; 1.5 ms each
# in the replay, back to back 5 us apart (a backlog of up to 1 s), but for three steps of
# 900 us (the worker preempted) before ops 100, 200 and 300. A second thread, free and on
# time, reads in between.
# usage: report_preempt_backlog_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup preempt-backlog "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig = ["100 100 0 10 openat path=/db/wal flags=O_WRONLY ret=3",
        "100 101 0 10 openat path=/db/data flags=O_RDONLY ret=4"]
rep = ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/slow",
       "meta replay.engine sync", "meta replay.timing original"] + \
      [l + " sched=1" for l in orig]
rfree = 0
for i in range(2000):
    t = 1000 + i * 1000
    orig.append("100 100 %d %d fdatasync fd=3 path=/db/wal ret=0" % (t, t + 100))
    st = max(t, rfree) + (900 if i in (100, 200, 300) else 5)
    rep.append("100 100 %d %d fdatasync fd=3 path=/db/wal ret=0 sched=%d" % (st, st + 1500, t))
    rfree = st + 1500
    op = "pread64 fd=4 path=/db/data off=%d len=4096 ret=4096" % (i * 4096)
    orig.append("100 101 %d %d %s" % (t + 500, t + 520, op))
    rep.append("100 101 %d %d %s sched=%d" % (t + 505, t + 525, op, t + 500))
open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
PY
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || exit 1
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/json" || exit 1
grep -E "lateness|of which|^  - " "$T/out"
fail=0
grep -q "could not keep its original pace" "$T/out" ||
	{ echo "FAIL: the backlog is not said"; fail=1; }
! grep -q "FELL BEHIND\|fell behind" "$T/out" ||
	{ echo "FAIL: preemptions in a backlog flagged as late wake-ups"; fail=1; }
python3 - "$T/json" <<'PY' || fail=1
import json, sys
lat = json.load(open(sys.argv[1]))["runs"][1]["lateness"]
# each preemption counts once, for the op it held up: 895 us, not carried and added up
if lat["fell_behind"] or not lat["pace_not_kept"] or lat["wake_max_ns"] > 1000000:
    print("FAIL: want pace not kept, not fell behind, wake-up lateness max under 1 ms: %r" % lat)
    sys.exit(1)
PY
[ $fail = 0 ] && echo PASS
exit $fail
