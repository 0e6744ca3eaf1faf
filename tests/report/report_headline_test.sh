#!/bin/bash
# report: the verdict's headline is the statistic that moved most, p90 and the mean as well as
# p50 and p99, with the others beside it. A PostgreSQL replay on disk: fdatasync p50 1.08x,
# p90 521 us -> 3.76 ms (7.2x), p99 1.27x, mean 2.3x; the verdict led with "p99 rises from
# 3.97 ms to 5.06 ms (1.27x slower; ...)" because p99 passed 1.25x, and a DB engineer read
# 1.27x where fsync time more than doubled. Here 1000 fdatasyncs:
#   original: 850 at 400 us, 130 at 521 us, 20 at 3.97 ms
#   replay:   800 at 432 us, 185 at 3.76 ms, 15 at 5.06 ms
# usage: report_headline_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup headline "$@"

python3 - "$T" <<'PY'
import sys
T = sys.argv[1]
orig = [400] * 850 + [521] * 130 + [3970] * 20
rep = [432] * 800 + [3760] * 185 + [5060] * 15
with open(T + "/o.txt", "w") as o, open(T + "/r.txt", "w") as r:
    r.write("meta replay.of %s/o.reel\nmeta replay.targets /var/tmp/disk\n" % T)
    r.write("meta replay.engine sync\nmeta replay.timing think\n")
    t = 1000
    for i in range(1000):
        lo, lr = orig[(i * 7) % 1000], rep[(i * 7) % 1000]
        o.write("100 100 %d %d fdatasync fd=3 path=/db/wal ret=0\n" % (t, t + lo))
        r.write("100 100 %d %d fdatasync fd=3 path=/db/wal ret=0 sched=%d\n" % (t, t + lr, t))
        t += 10000
PY
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || exit 1
v=$(sed -n '/^verdict:/,$p' "$T/out")
echo "$v"
echo "$v" | grep -q "fdatasync p90 rises from 52[0-9] µs to 3.7[0-9] ms on /var/tmp/disk (7.[0-9]*× slower; p50 1.0[0-9]×, p99 1.2[0-9]×, mean 2.[0-9]*×, KS D 0.[0-9]*)" ||
	{ echo "FAIL: the headline is not p90, the stat that moved most, with the others beside it"; exit 1; }
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/json" || exit 1
python3 - "$T/json" <<'PY' || exit 1
import json, sys
v = [v for v in json.load(open(sys.argv[1]))["verdict"] if v["tag"] == "slower"]
# the speed-up of the headline: 3.76 ms against 521 us
if len(v) != 1 or not 0.13 < v[0]["speedup"] < 0.15:
    print("FAIL: JSON speedup not p90's: %r" % v)
    sys.exit(1)
PY
echo PASS
