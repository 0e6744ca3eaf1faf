#!/bin/bash
# report: a think timing replay keeps the original's gaps between each thread's ops, and with
# them the waits the trace cannot see. A lock-contended SQLite on a RAM disk: "I/O time
# 16.2 ms against the original's 564 ms (0.03x); the run took 639 ms against 639 ms (1.00x)",
# read as the storage's doing, where the application itself ran 3.5-15x faster: its other
# process slept after each refused lock, and an idle parent spanned the run. The verdict must
# say that the duration is held by the original's gaps, and name the refused locks.
# Here, as SQLite with two processes and their parent:
#   100: 100 transactions: fcntl_lock, pwrite64 50 us, fdatasync 5 ms, fcntl_lock, 1 ms apart
#   200: 30 fcntl_locks refused (EAGAIN), each followed by 20 ms of sleep, then a close
#   1:   an openat at the start and a close at 640 ms, nothing between
# The think replay on /dev/shm/t: each op 30x faster, every gap kept as it was. An afap replay
# beside it gets no such note.
# usage: report_think_gaps_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup think-gaps "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig, rep, afap = [], [], []


def op(pid, start, lat, what):
    orig.append("%d %d %d %d %s" % (pid, pid, start, start + lat, what))
    return lat


def replay(ops, speed):
    # each thread's ops in order, its gaps as they were, each op `speed` times faster
    out, by_tid = [], {}
    for line in ops:
        f = line.split(" ", 4)
        by_tid.setdefault(f[1], []).append((int(f[2]), int(f[3]), line))
    for tid, l in by_tid.items():
        t = prev_end = None
        for s, e, line in l:
            t = s if t is None else t + (s - prev_end)
            lat = max(1, (e - s) // speed)
            f = line.split(" ", 4)
            out.append("%s %s %d %d %s sched=%d" % (f[0], f[1], t, t + lat, f[4], t))
            prev_end, t = e, t + lat
    return out


op(1, 0, 20, "openat path=/db/main.db flags=O_RDWR ret=5")
op(100, 100, 20, "openat path=/db/main.db flags=O_RDWR ret=3")
op(200, 100, 20, "openat path=/db/main.db flags=O_RDWR ret=4")
t = 1000
for i in range(100):
    t += op(100, t, 10, "fcntl_lock fd=3 ret=0") + 5
    t += op(100, t, 50, "pwrite64 fd=3 off=%d len=4096 ret=4096" % (i * 4096)) + 5
    t += op(100, t, 5000, "fdatasync fd=3 ret=0") + 5
    t += op(100, t, 10, "fcntl_lock fd=3 ret=0") + 1000
t = 2000
for i in range(30):
    op(200, t, 10, "fcntl_lock fd=4 ret=-EAGAIN")
    t += 20010
op(200, t, 20, "close fd=4 ret=0")
op(1, 640000, 20, "close fd=5 ret=0")
head = ["meta replay.of %s/o.reel" % d, "meta replay.engine sync"]
rep = head + ["meta replay.targets /dev/shm/t", "meta replay.timing think"] + replay(orig, 30)
afap = head + ["meta replay.targets /dev/shm/a", "meta replay.timing afap"]
afap += replay(orig, 30)
open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
open(d + "/a.txt", "w").write("\n".join(afap) + "\n")
PY
mk_pair
"$MKTRACE" "$T/a.reel" <"$T/a.txt" || exit 1
"$IOREEL" report "$T/o.reel" "$T/r.reel" "$T/a.reel" >"$T/out" || exit 1
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" "$T/a.reel" >"$T/json" || exit 1
v=$(sed -n '/^verdict:/,$p' "$T/out")
echo "$v"
fail=0
echo "$v" | grep -q "^  - on /dev/shm/t the I/O time fell to 0.0[0-9]× the original's but the run took 1.0[0-9]× as long: [67][0-9]% of the original threads' time was gaps between their ops, which think timing keeps as they were (sleeps, lock waits, waits on other processes the trace cannot see), so the duration says little about the storage here; compare the I/O time instead. 30 of the original's locks were refused (fcntl_lock, flock: EAGAIN, EACCES) and followed by a gap on their thread, 600 ms in all: the application slept before it tried again" ||
	{ echo "FAIL: the think replay's duration not said to be held by the original's gaps"; fail=1; }
# right after the bottom line it qualifies
echo "$v" | grep -A1 "^  - on /dev/shm/t: I/O time" | grep -q "gaps between their ops" ||
	{ echo "FAIL: the note is not beside the bottom line"; fail=1; }
! echo "$v" | grep -q "on /dev/shm/a .*gaps between their ops" ||
	{ echo "FAIL: the note said of an afap replay"; fail=1; }
python3 - "$T/json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
tags = [(v["tag"], v["run"]) for v in doc["verdict"]]
o = doc["runs"][0]
ok = ("held_by_gaps", 1) in tags and ("held_by_gaps", 2) not in tags and \
    o["lock_retries"] == 30 and 590e6 < o["lock_retry_gap_ns"] < 610e6 and \
    0.6 < 1 - o["thread_io_ns"] / o["thread_span_ns"] < 0.8
if not ok:
    print("FAIL: JSON: want held_by_gaps for run 1 only, 30 lock retries: %r %r" %
          (tags, {k: o[k] for k in ("lock_retries", "lock_retry_gap_ns", "thread_span_ns",
                                    "thread_io_ns")}))
    sys.exit(1)
PY

# A closed loop of io_uring requests has no gaps: its thread waits for each in flight. 100
# reads of 5 ms, each submitted 20 us after the last one's completion, replayed in original
# timing with each read 30x faster: no note (its requests' time had counted as gaps, 100%)
python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
o, r = [], ["meta replay.of %s/o2.reel" % d, "meta replay.engine sync",
	    "meta replay.targets /dev/shm/u", "meta replay.timing original"]
o.append("300 300 0 10 openat path=/db/u.dat flags=O_RDONLY ret=3")
r.append("300 300 0 10 openat path=/db/u.dat flags=O_RDONLY ret=3 sched=0")
t = 100
for i in range(100):
	req = "fd=3 ctx=9 subop=22 len=4096 aux=%d off=%d" % (i + 1, i * 4096)
	o.append("300 300 %d %d uring_submit %s ret=1" % (t, t, req))
	o.append("300 300 %d %d uring_complete %s ret=4096" % (t, t + 5000, req))
	r.append("300 300 %d %d uring_submit %s ret=1 sched=%d" % (t, t, req, t))
	r.append("300 300 %d %d uring_complete %s ret=4096 sched=%d" % (t, t + 166, req, t + 5000))
	t += 5020
o.append("300 300 %d %d close fd=3 ret=0" % (t, t + 10))
r.append("300 300 %d %d close fd=3 ret=0 sched=%d" % (t, t + 10, t))
open(d + "/o2.txt", "w").write("\n".join(o) + "\n")
open(d + "/r2.txt", "w").write("\n".join(r) + "\n")
PY
"$MKTRACE" "$T/o2.reel" <"$T/o2.txt" && "$MKTRACE" "$T/r2.reel" <"$T/r2.txt" || exit 1
"$IOREEL" report "$T/o2.reel" "$T/r2.reel" >"$T/out2" || exit 1
! grep -q "gaps between their ops" "$T/out2" ||
	{ echo "FAIL: a closed loop of io_uring requests said to be gaps:"; grep "gaps between" "$T/out2"; fail=1; }
[ $fail = 0 ] && echo PASS
exit $fail
