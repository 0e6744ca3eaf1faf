#!/bin/bash
# report: a sync trace replayed with --engine io_uring has several requests of one thread in
# flight at once, and its records overlap (each from its submission to its reaping). The
# thread is not "behind" because an earlier request has not ended: it submitted and went on.
#  woke: preads every 100 us, each 500 us long in the replay (5 in flight), every one
#        submitted 2 ms after its schedule: a replayer that woke up late, FELL BEHIND, not
#        PACE NOT KEPT (the overlapping requests used to be taken as holding the thread, and
#        all of that lateness as the target's backlog).
#  drain: groups of 10 preads, then an fsync, which waits for all of them: the requests take
#        3 ms, so each fsync starts late, and what follows with it: that is backlog, PACE NOT
#        KEPT, and the replayer never woke up late.
#  full: preads every 10 us, 2 ms each: 64 in flight fill the thread's queue, and from then
#        on each submission waits for the oldest request: backlog, PACE NOT KEPT.
# usage: report_pace_engine_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup pace-engine "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]


def head(name, of):
    return ["meta replay.of %s/%s.reel" % (d, of), "meta replay.targets /var/tmp/%s" % name,
            "meta replay.engine io_uring", "meta replay.timing original",
            "100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3 sched=1"]


def pread(i):
    return "pread64 fd=3 path=/db/data off=%d len=4096 ret=4096" % (i * 4096)


orig = ["100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3"]
woke = head("woke", "o")
for i in range(400):
    t = 100 + i * 100
    orig.append("100 100 %d %d %s" % (t, t + 10, pread(i)))
    woke.append("100 100 %d %d %s sched=%d" % (t + 2000, t + 2500, pread(i), t))

# drain: the original's groups of 10 preads 100 us apart, an fsync 100 us after the last
origd = ["100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3"]
drain = head("drain", "od")
t, rfree = 100, 0  # the original's clock; when the replay's thread is free, in fact
for g in range(40):
    done = 0
    for i in range(10):
        origd.append("100 100 %d %d %s" % (t, t + 10, pread(i)))
        st = max(t, rfree) + 5
        drain.append("100 100 %d %d %s sched=%d" % (st, st + 3000, pread(i), t))
        rfree = st
        done = max(done, st + 3000)
        t += 100
    origd.append("100 100 %d %d fsync fd=3 path=/db/data ret=0" % (t, t + 50))
    st = max(t, rfree, done) + 5
    drain.append("100 100 %d %d fsync fd=3 path=/db/data ret=0 sched=%d" % (st, st + 50, t))
    rfree = st + 50
    t += 100

# full: a read every 10 us, 2 ms each; the 65th waits for the 1st to be done
origf = ["100 100 0 10 openat path=/db/data flags=O_RDONLY ret=3"]
full = head("full", "of")
ends, rfree = [], 0
for i in range(1000):
    t = 100 + i * 10
    origf.append("100 100 %d %d %s" % (t, t + 5, pread(i)))
    st = max(t, rfree) + 2
    if len(ends) >= 64:
        st = max(st, ends[len(ends) - 64] + 2)
    full.append("100 100 %d %d %s sched=%d" % (st, st + 2000, pread(i), t))
    ends.append(st + 2000)
    rfree = st

for name, lines in (("o", orig), ("woke", woke), ("od", origd), ("drain", drain),
                    ("of", origf), ("full", full)):
    open("%s/%s.txt" % (d, name), "w").write("\n".join(lines) + "\n")
PY
for n in o woke od drain of full; do
	"$MKTRACE" "$T/$n.reel" <"$T/$n.txt" || exit 1
done
"$IOREEL" report --json "$T/o.reel" "$T/woke.reel" >"$T/woke.json" || exit 1
"$IOREEL" report --json "$T/od.reel" "$T/drain.reel" >"$T/drain.json" || exit 1
"$IOREEL" report --json "$T/of.reel" "$T/full.reel" >"$T/full.json" || exit 1
python3 - "$T" <<'PY'
import json, sys
d = sys.argv[1]
fails = []
for name, pace in (("woke", False), ("drain", True), ("full", True)):
    lat = json.load(open("%s/%s.json" % (d, name)))["runs"][1]["lateness"]
    if pace:
        if not lat["pace_not_kept"] or lat["fell_behind"]:
            fails.append("%s: want pace not kept, not fell behind: %r" % (name, lat))
        if lat["wake_p99_ns"] > 100000:
            fails.append("%s: wake-up lateness p99 %d ns, want under 0.1 ms" %
                         (name, lat["wake_p99_ns"]))
    else:
        if lat["pace_not_kept"] or not lat["fell_behind"]:
            fails.append("%s: want fell behind, pace kept: %r" % (name, lat))
        if lat["backlog_p99_ns"] > 100000:
            fails.append("%s: backlog p99 %d ns, want under 0.1 ms" %
                         (name, lat["backlog_p99_ns"]))
for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else "%d checks failed" % len(fails))
sys.exit(1 if fails else 0)
PY
