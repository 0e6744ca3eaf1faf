#!/bin/bash
# report: PACE NOT KEPT names what made the backlog. fio's rate_iops=2000 randread, recorded
# on ext4 and replayed on /dev/shm with original timing: its 64 MiB layout fallocate took
# 8-15 ms on tmpfs against 0.3-0.6 ms on ext4, the 16,384 layout writes due 3 us apart behind
# it ran late, the rate-limited reads were on time; the verdict said only that the replay
# "could not keep its original pace", the fallocate one of "N more op types changed". The
# verdict must name the op types (and file) whose time beyond the original's built the
# backlog, and say when only a stretch of the run was behind.
# Here, one thread as fio's: an openat, a fallocate of 300 us, 2000 writes of 2 us due 5 us
# apart, then 2000 preads of 100 us due 500 us apart (1 s). Replays in original timing,
# each op issued when due or 1 us after its thread's previous op ended:
#   /dev/shm/t: the fallocate takes 10 ms: the writes run late, the reads on time
#   /dev/shm/r: each pread takes 600 us: ever later, all through the run
#   /dev/shm/s: the fallocate takes 10 ms, and in the backlog it starts the replayer takes
#               50 us from each op to the next: most of the backlog builds between ops
# usage: report_pace_cause_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup pace-cause "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
ops = [(0, 20, "openat path=/data/f flags=O_RDWR ret=3"),
       (1000, 300, "fallocate fd=3 off=0 len=8192000 ret=0")]
for i in range(2000):
    ops.append((1400 + 5 * i, 2, "pwrite64 fd=3 off=%d len=4096 ret=4096" % (i * 4096)))
for i in range(2000):
    ops.append((20000 + 500 * i, 100, "pread64 fd=3 off=%d len=4096 ret=4096" % (i * 4096)))
ops.append((1020000, 10, "close fd=3 ret=0"))
open(d + "/o.txt", "w").write("".join("100 100 %d %d %s\n" % (t, t + l, w) for t, l, w in ops))


def replay(name, lat_of, step=1):
    out = ["meta replay.of %s/o.reel" % d, "meta replay.engine sync",
           "meta replay.targets %s" % name, "meta replay.timing original"]
    end = 0
    for t, l, w in ops:
        start = max(t, end + step) if end else t
        end = start + lat_of(w, l)
        out.append("100 100 %d %d %s sched=%d" % (start, end, w, t))
    open(d + "/%s.txt" % name.split("/")[-1], "w").write("\n".join(out) + "\n")


replay("/dev/shm/t", lambda w, l: 10000 if w.startswith("fallocate") else l)
replay("/dev/shm/r", lambda w, l: 600 if w.startswith("pread64") else l)
replay("/dev/shm/s", lambda w, l: 10000 if w.startswith("fallocate") else l, step=50)
PY
"$MKTRACE" "$T/o.reel" <"$T/o.txt" || exit 1
for x in t r s; do "$MKTRACE" "$T/$x.reel" <"$T/$x.txt" || exit 1; done
"$IOREEL" report "$T/o.reel" "$T/t.reel" "$T/r.reel" "$T/s.reel" >"$T/out" || exit 1
"$IOREEL" report --json "$T/o.reel" "$T/t.reel" "$T/r.reel" "$T/s.reel" >"$T/json" || exit 1
v=$(sed -n '/^verdict:/,$p' "$T/out")
echo "$v"
fail=0
# the cause, right after the pace verdict it explains
echo "$v" | grep -A1 "^  - on /dev/shm/t the application could not keep its original pace" |
	grep -q "^  - on /dev/shm/t the backlog was made by ops slower than the original's (beyond its p90 of their type), by the share of its build-up each made: fallocate 100% of it (1 op: 10.0 ms against the original's 300 µs), mostly on /data/f; only a stretch of the run was behind: 50.0% of the ops were 1.00 ms or more behind their schedule, 90% of them due between [0-9.]* ms and [0-9.]* ms of the original's 1.02 s$" ||
	{ echo "FAIL: the fallocate is not named, or the stretch of late writes not said"; fail=1; }
echo "$v" | grep -q "^  - on /dev/shm/r the backlog was made by .*: pread64 [0-9]*% (2000 ops: 600 µs on average against the original's 100 µs), mostly on /data/f; [0-9.]*% of the ops were 1.00 ms or more behind their schedule, spread over the run$" ||
	{ echo "FAIL: the slow preads are not named, or not said to be late all through"; fail=1; }
echo "$v" | grep -q "^  - on /dev/shm/s most of the backlog (9[0-9]% of its build-up) built up between ops or in ops no slower than the original's" ||
	{ echo "FAIL: a backlog built between ops is put on an op type"; fail=1; }
python3 - "$T/json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
tags = [(v["tag"], v["run"]) for v in doc["verdict"]]
lat = doc["runs"][1]["lateness"]
made = lat["backlog_made_ns"]
ok = all(tags.index(("pace_cause", r)) == tags.index(("pace_not_kept", r)) + 1 for r in (1, 2, 3)) \
    and 9.6e6 <= made.get("fallocate", 0) <= 9.8e6 and lat["behind_ops"] == 2000 \
    and sum(made.values()) <= lat["backlog_rise_ns"]
if not ok:
    print("FAIL: JSON: tags %r, lateness %r" % (tags, lat))
    sys.exit(1)
PY
[ $fail = 0 ] && echo PASS
exit $fail
