#!/bin/bash
# report: a replay through an async engine (--engine io_uring, libaio) says how many of its
# reads and writes were in flight, beside the original's, and the verdict says it when that
# is more than the original had: dd's sequential 1 MiB O_DIRECT writes (0.9 in flight)
# replayed through io_uring with 2.7 (up to 8), and the report read "write p50 rises from
# 674 us to 3.55 ms (5.26x slower)" with nothing about the queue the replay had made. Here
# the original writes 40 times 1 ms, one at a time; the io_uring replay 4 at a time, 4 ms
# each (4.0 in flight); a sync replay one at a time, which says nothing of an engine.
# usage: report_engine_depth_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup engine-depth "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
def run(engine):
    f = [] if engine is None else ["meta replay.of %s/o.reel" % d,
         "meta replay.targets /var/tmp/t-%s" % engine, "meta replay.engine %s" % engine,
         "meta replay.timing original"]
    s = "" if engine is None else " sched=1"
    f.append("100 100 0 10 openat path=/d/out flags=O_WRONLY ret=3" + s)
    for i in range(40):
        if engine == "io_uring":
            t, lat = 100 + (i // 4) * 4000, 4000
        else:
            t, lat = 100 + i * 1000, 1000
        f.append("100 100 %d %d pwrite64 fd=3 path=/d/out off=%d len=4096 ret=4096%s"
                 % (t, t + lat, i * 4096, s))
    return f
for name, engine in (("o", None), ("u", "io_uring"), ("s", "sync")):
    open("%s/%s.txt" % (d, name), "w").write("\n".join(run(engine)) + "\n")
PY
for n in o u s; do "$MKTRACE" "$T/$n.reel" <"$T/$n.txt" || exit 1; done
"$IOREEL" report "$T/o.reel" "$T/u.reel" "$T/s.reel" >"$T/r.txt" 2>&1 || { cat "$T/r.txt"; exit 1; }
fails=0
grep -q "^     40 reads and writes through io_uring, 4.0 in flight on average over their span (the original: 1.0)$" \
	"$T/r.txt" || { echo "FAIL: the io_uring replay's reads and writes in flight, want 4.0 (1.0)"; fails=1; }
grep -q "reads and writes through sync" "$T/r.txt" &&
	{ echo "FAIL: a sync replay has no engine's queue to tell"; fails=1; }
grep -q "on /var/tmp/t-io_uring the application's reads and writes, syscalls in the original, went out as io_uring requests, several of a thread in flight: 4.0 on average, the original 1.0" \
	"$T/r.txt" || { echo "FAIL: the verdict does not say the io_uring replay queued its writes"; fails=1; }
"$IOREEL" report --json "$T/o.reel" "$T/u.reel" "$T/s.reel" >"$T/r.json" || exit 1
python3 - "$T/r.json" <<'PY' || fails=1
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
got = [(r["data_ops"], r["data_in_flight"]) for r in runs]
if got != [(40, 1.0), (40, 4.0), (40, 1.0)]:
    print("FAIL: JSON data_ops, data_in_flight: %r" % got)
    sys.exit(1)
PY
[ $fails = 0 ] || { cat "$T/r.txt"; exit 1; }
echo PASS
