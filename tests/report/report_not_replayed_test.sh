#!/bin/bash
# report: ops of the original that a replay did not issue are in the original's I/O time and
# not in the replay's. fio's io_uring job with registerfiles=1 had all 123,905 of its requests
# left out (the recording cannot name registered files), and the verdict's bottom line read
# "I/O time 7.82 s against the original's 30.8 s (0.25x)", then "compare the I/O time
# instead", with the missing op types far below and nothing in the runs' summary. The
# runs' summary must count the ops not replayed and their share of the original's I/O time;
# a warning must come before the bottom line when that share is large, and the bottom line
# (and the held-by-gaps advice) compare only the ops replayed.
# Here, as such a fio run: thread 100 does 100 preads of 100 us, 10 ms apart; thread 200
# 400 io_uring READ_FIXED requests of 2 ms on a registered file (fd -1), 4 in flight.
# The think replay on /dev/shm/t has the preads only, each 4x faster (25 us), gaps kept;
# the one on /dev/shm/all has everything, as fast as the original; the one on /dev/shm/c
# lacks only one of thread 100's 100 preads.
# usage: report_not_replayed_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup not-replayed "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig, preads, urings = [], [], []
orig.append("100 100 0 20 openat path=/db/f flags=O_RDONLY ret=3")
for i in range(100):
    t = 1000 + i * 10000
    preads.append((t, 100000, "pread64 fd=3 off=%d len=4096 ret=4096" % (i * 4096)))
for i in range(400):
    sub = 1000 + (i // 4) * 2500 + (i % 4) * 10
    req = "fd=-1 ctx=9 subop=4 len=4096 aux=%d off=%d" % (i + 1, i * 4096)
    urings.append("200 200 %d %d uring_submit %s ret=1" % (sub, sub, req))
    urings.append("200 200 %d %d uring_complete %s ret=4096" % (sub, sub + 2000000 // 1000, req))
orig += ["100 100 %d %d %s" % (t, t + lat // 1000, w) for t, lat, w in preads] + urings


def replay(target, speed, with_uring, skip=()):
    out = ["meta replay.of %s/o.reel" % d, "meta replay.engine sync",
           "meta replay.targets %s" % target, "meta replay.timing think",
           "100 100 0 20 openat path=/db/f flags=O_RDONLY ret=3 sched=0"]
    for i, (t, lat, w) in enumerate(preads):
        if i not in skip:
            out.append("100 100 %d %d %s sched=%d" % (t, t + lat // speed // 1000, w, t))
    if with_uring:
        for line in urings:
            f = line.split(" ")
            out.append(line + " sched=%s" % f[2])
    return out


open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(replay("/dev/shm/t", 4, False)) + "\n")
open(d + "/a.txt", "w").write("\n".join(replay("/dev/shm/all", 1, True)) + "\n")
open(d + "/c.txt", "w").write("\n".join(replay("/dev/shm/c", 1, True, skip=(50,))) + "\n")
PY
mk_pair
for x in a c; do "$MKTRACE" "$T/$x.reel" <"$T/$x.txt" || exit 1; done
"$IOREEL" report "$T/o.reel" "$T/r.reel" "$T/a.reel" "$T/c.reel" >"$T/out" || exit 1
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" "$T/a.reel" "$T/c.reel" >"$T/json" || exit 1
cat "$T/out"
fail=0
runs=$(sed -n '/^runs:/,/^$/p' "$T/out")
v=$(sed -n '/^verdict:/,$p' "$T/out")
# the runs' summary counts them, with their share of the original's I/O time
echo "$runs" | grep -A2 "^  #1 /dev/shm/t:" |
	grep -q "^     400 of the original's ops not replayed, 800 ms of its I/O time (98.8%): uring_read_fixed 400$" ||
	{ echo "FAIL: the runs' summary does not count the ops not replayed"; fail=1; }
echo "$runs" | grep -A2 "^  #3 /dev/shm/c:" |
	grep -q "^     1 of the original's ops not replayed, 100 µs of its I/O time (0.0%): pread64 1$" ||
	{ echo "FAIL: the runs' summary does not count the one pread not replayed"; fail=1; }
! echo "$runs" | grep -A2 "^  #2 /dev/shm/all:" | grep -q "not replayed" ||
	{ echo "FAIL: a whole replay said to lack ops"; fail=1; }
# a warning first, then a bottom line over the ops replayed
echo "$v" | grep -A1 "^  - NOT REPLAYED on /dev/shm/t: 400 of the original's 501 ops, 98.8% of its I/O time (uring_read_fixed 400; the replay's summary says why): this replay is not the application's workload" |
	grep -q "^  - on /dev/shm/t: I/O time 2.52 ms against the original's 10.0 ms (0.25×) for the ops it replayed, leaving out the 400 it did not (98.8% of the original's 810 ms); the run took" ||
	{ echo "FAIL: no warning before a bottom line over the ops replayed"; fail=1; }
# held by gaps: about the I/O time of the ops replayed, never the whole
echo "$v" | grep -q "^  - on /dev/shm/t the I/O time of the ops replayed fell to 0.25× the original's but the run took 1.0[0-9]× as long: .*compare the I/O time of the ops replayed instead" ||
	{ echo "FAIL: the held-by-gaps advice is not about the ops replayed"; fail=1; }
! echo "$v" | grep -q "0\.00[0-9]*×" || { echo "FAIL: a ratio over ops not replayed"; fail=1; }
# a replay lacking one cheap op keeps the plain bottom line, and no warning
echo "$v" | grep -q "^  - on /dev/shm/c: I/O time 810 ms against the original's 810 ms (1.00×); the run took" ||
	{ echo "FAIL: the bottom line of a replay lacking one cheap op changed"; fail=1; }
! echo "$v" | grep -q "NOT REPLAYED on /dev/shm/\(all\|c\)" || { echo "FAIL: warned of a whole replay"; fail=1; }
python3 - "$T/json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
runs = doc["runs"]
tags = [(v["tag"], v["run"]) for v in doc["verdict"]]
got = [(r["not_replayed_ops"], r["not_replayed_io_ns"]) for r in runs]
ok = got == [(0, 0), (400, 800000000), (0, 0), (1, 100000)] and \
    ("not_replayed", 1) in tags and tags.index(("not_replayed", 1)) < tags.index(("total", 1)) and \
    ("not_replayed", 2) not in tags and ("not_replayed", 3) not in tags
if not ok:
    print("FAIL: JSON: not replayed %r, tags %r" % (got, tags))
    sys.exit(1)
PY
"$IOREEL" report --html "$T/r.html" "$T/o.reel" "$T/r.reel" >/dev/null || exit 1
grep -q '<li class="v-not_replayed">NOT REPLAYED on /dev/shm/t' "$T/r.html" &&
	grep -q '(400 not replayed)' "$T/r.html" || { echo "FAIL: HTML"; fail=1; }
[ $fail = 0 ] && echo PASS
exit $fail
