#!/bin/bash
# report --timeline: per interval of each run's own clock, the ops that started in it and the
# p50/p99 of the class with most of the original's I/O time. The original: 4 s of 100 pwrite
# + fdatasync pairs a second, its fdatasyncs 100 us except in its third second (5 ms: the
# slow stretch); the replay (original timing) 200 us throughout. The timeline must show the
# original's slow second and the replay's not being slow then; the JSON carries every class;
# the automatic interval is 200 ms (about 20 over 4 s); intervals past the cap are counted;
# the HTML page plots it.
# usage: report_timeline_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup timeline "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig = []
rep = ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/t",
       "meta replay.engine sync", "meta replay.timing original"]
for f in (orig, rep):
    # the replay's ops on time: each scheduled when it started
    s = (lambda t: " sched=%d" % t) if f is rep else (lambda t: "")
    f.append("100 100 0 10 openat path=/db/wal flags=O_RDWR ret=3" + s(0))
    for sec in range(4):
        for k in range(100):
            t = sec * 1000000 + k * 10000 + 20
            sync = 200 if f is rep else (5000 if sec == 2 else 100)
            f.append("100 100 %d %d pwrite64 fd=3 path=/db/wal off=0 len=8192 ret=8192%s"
                     % (t, t + 2, s(t)))
            f.append("100 100 %d %d fdatasync fd=3 path=/db/wal ret=0%s"
                     % (t + 5, t + 5 + sync, s(t + 5)))
open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
PY
mk_pair
fails=0
"$IOREEL" report "$T/o.reel" "$T/r.reel" --timeline=1s >"$T/out" 2>&1 || { cat "$T/out"; exit 1; }
grep -q "^timeline: per 1.00 s of each run's own clock.*p50 / p99 of its syncs" "$T/out" ||
	{ echo "FAIL: timeline heading (1 s, syncs)"; fails=1; }
# from | #0 ops p50 p99 | #1 ops p50 p99: the original's third second slow, the replay's not
for want in "0 201 100 µs 100 µs 201 200 µs 200 µs" "1.00 s 200 100 µs 100 µs 200 200 µs 200 µs" \
	"2.00 s 200 5.00 ms 5.00 ms 200 200 µs 200 µs" "3.00 s 200 100 µs 100 µs 200 200 µs 200 µs"; do
	sed -n '/^timeline/,/^$/p' "$T/out" | tr -s ' ' | grep -qx "$want" ||
		{ echo "FAIL: timeline row '$want'"; fails=1; }
done
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/plain" 2>&1 || exit 1
! grep -q "^timeline" "$T/plain" || { echo "FAIL: a timeline without --timeline"; fails=1; }

"$IOREEL" report --json --timeline "$T/o.reel" "$T/r.reel" >"$T/r.json" || exit 1
python3 - "$T/r.json" <<'PY' || fails=1
import json, sys
tl = json.load(open(sys.argv[1]))["timeline"]
bad = []
if tl["interval_ns"] != 200000000 or tl["class"] != "sync":
    bad.append("interval %r class %r, want 200 ms, sync" % (tl["interval_ns"], tl["class"]))
for run, sync_ns in ((0, [100000] * 10 + [5000000] * 5 + [100000] * 5), (1, [200000] * 20)):
    iv = tl["runs"][run]["intervals"]
    if len(iv) != 20:
        bad.append("run %d: %d intervals, want 20" % (run, len(iv)))
        continue
    for i, (x, want) in enumerate(zip(iv, sync_ns)):
        c = x["by_class"]
        if x["from_ns"] != i * 200000000 or c["sync"]["count"] != 20 or \
           c["sync"]["p50_ns"] != want or c["write"]["count"] != 20:
            bad.append("run %d interval %d: %r" % (run, i, x))
if bad:
    print("FAIL: JSON timeline:", *bad[:5], sep="\n  ")
    sys.exit(1)
PY

# the HTML page: a timeline plot with both runs' p99 and p50 lines, only when asked for
"$IOREEL" report "$T/o.reel" "$T/r.reel" --timeline=1s --html "$T/t.html" >/dev/null || exit 1
"$IOREEL" report "$T/o.reel" "$T/r.reel" --html "$T/n.html" >/dev/null || exit 1
grep -q "<h2>Timeline</h2>" "$T/t.html" && ! grep -q "<h2>Timeline</h2>" "$T/n.html" ||
	{ echo "FAIL: the HTML timeline section"; fails=1; }
n=$(sed -n '/<h2>Timeline/,$p' "$T/t.html" | grep -c '^<path.*d="M[0-9.]* [0-9.]* L')
[ "$n" = 4 ] || { echo "FAIL: the HTML timeline has $n lines, want 4 (p99 and p50 of 2 runs)"; fails=1; }
# a run over within one interval (as an afap replay often is) is still drawn: a segment
"$MKTRACE" "$T/a.reel" <<A || exit 1
meta replay.of $T/o.reel
meta replay.targets /var/tmp/t
meta replay.engine sync
meta replay.timing afap
100 100 0 10 openat path=/db/wal flags=O_RDWR ret=3 sched=1
100 100 20 30 fdatasync fd=3 path=/db/wal ret=0 sched=1
100 100 40 50 fdatasync fd=3 path=/db/wal ret=0 sched=1
A
"$IOREEL" report "$T/o.reel" "$T/a.reel" --timeline=1s --html "$T/a.html" >/dev/null || exit 1
n=$(sed -n '/<h2>Timeline/,$p' "$T/a.html" | grep -c '^<path.*stroke="#0072B2".*d="M[0-9.]* [0-9.]* L')
[ "$n" = 2 ] || { echo "FAIL: a run within one interval is not drawn ($n lines of 2)"; fails=1; }

"$IOREEL" report "$T/o.reel" --timeline=1us >"$T/cap" 2>&1 || exit 1
grep -q "#0: [0-9]* ops after the last of 10000 intervals, not shown" "$T/cap" ||
	{ echo "FAIL: ops past the interval cap not counted"; fails=1; }
"$IOREEL" report "$T/o.reel" --timeline=0.1ns >"$T/bad" 2>&1
[ $? = 2 ] && grep -q "is not an interval from 1us" "$T/bad" ||
	{ echo "FAIL: a bad interval accepted"; fails=1; }
[ $fails = 0 ] && echo "ok: timeline"
exit $fails
