#!/bin/bash
# report --timeline: a replay in original timing that fell behind (a slow target's backlog)
# has its ops in the rows of the moments of the original they stand for, by their schedule:
# binned by when they ran, they stood seconds past the original's end, where no row of the
# original was beside them. 2 s of 100 preads a second; in the replay the first one takes
# 3 s and every later op runs behind it.
# usage: report_timeline_sched_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup timeline-sched "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
with open(d + "/o.txt", "w") as o, open(d + "/r.txt", "w") as r:
    r.write("meta replay.of %s/o.reel\nmeta replay.targets /var/tmp/slow\n" % d)
    r.write("meta replay.engine sync\nmeta replay.timing original\n")
    at = 3000000  # us: the replay's first op ends here
    for i in range(200):
        t = i * 10000
        o.write("100 100 %d %d pread64 fd=3 path=/db/f off=0 len=4096 ret=4096\n" % (t, t + 50))
        lat = 3000000 if i == 0 else 50
        start = t if i == 0 else at
        r.write("100 100 %d %d pread64 fd=3 path=/db/f off=0 len=4096 ret=4096 sched=%d\n"
                % (start, start + lat, t))
        at = start + lat
PY
mk_pair
"$IOREEL" report --json --timeline=1s "$T/o.reel" "$T/r.reel" >"$T/out.json" || exit 1
python3 - "$T/out.json" <<'PY'
import json, sys
tl = json.load(open(sys.argv[1]))["timeline"]["runs"]
rows = {r["run"]: [(iv["from_ns"], iv["ops"]) for iv in r["intervals"] if iv["ops"]] for r in tl}
want = [(0, 100), (1000000000, 100)]
if rows.get(1) != want:
    sys.exit("FAIL: the replay's rows %r, want the original's moments %r" % (rows.get(1), want))
PY
[ $? = 0 ] && echo PASS
