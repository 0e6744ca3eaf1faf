#!/bin/bash
# report: an op type is judged by p90 and the mean too, not by p50 and p99 alone. A throttled
# disk filled the slow mode of fdatasync's two: p50 fell (0.63x), p99 stayed, while p90 rose
# 24x and the mean 4.6x, and the verdict read "fdatasync ... 1.59x faster" for the op that
# made the run 4x longer. Here: 200 fdatasyncs, 170 at 580 us, 26 at 3 ms and 4 at 96 ms in
# the original; 160 at 368 us, 36 at 72 ms and 4 at 99 ms in the replay (p99 1.03x).
# usage: report_mean_moved_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup mean-moved "$@"

python3 - "$T" <<'PY'
import sys
T = sys.argv[1]
orig = [580] * 170 + [3000] * 26 + [96000] * 4
rep = [368] * 160 + [72000] * 36 + [99000] * 4
with open(T + "/o.txt", "w") as o, open(T + "/r.txt", "w") as r:
    r.write("meta replay.of %s/o.reel\nmeta replay.targets /var/tmp/slow\n" % T)
    r.write("meta replay.engine sync\nmeta replay.timing think\n")
    t = 1000
    for i in range(200):
        lo, lr = orig[(i * 7) % 200], rep[(i * 7) % 200]
        o.write("100 100 %d %d fdatasync fd=3 path=/db/log ret=0\n" % (t, t + lo))
        r.write("100 100 %d %d fdatasync fd=3 path=/db/log ret=0 sched=%d\n" % (t, t + lr, t))
        t += 100000
PY
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || exit 1
v=$(sed -n '/^verdict:/,$p' "$T/out")
echo "$v" | grep -q "fdatasync on /var/tmp/slow pulls apart: p90 rises from 3.0[0-9] ms to 72.[0-9] ms (2[34].[0-9]×) while p50 falls from 58[0-9] µs to 36[0-9] µs (0.6[0-9]×)" ||
	{ echo "$v"; echo "FAIL: the p90 and p50 moving apart are not said"; exit 1; }
! echo "$v" | grep -q "fdatasync.*faster" || { echo "$v"; echo "FAIL: fdatasync said faster"; exit 1; }
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" | grep -q '"change": "mixed"' ||
	{ echo "FAIL: JSON change not mixed"; exit 1; }
echo PASS
