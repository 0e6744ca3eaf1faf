#!/bin/bash
# report: lateness an op spent waiting for ops of other threads the replay keeps it after
# (the result's wait_ns, format 1.2) is counted apart from the wake-up lateness. Two threads:
#  writer: appends 8 MiB every 10 ms, 100 us in the original, 9 ms in the replay;
#  reader: 1 ms after each append reads its end: in the replay it waited for the append
#          (8 ms, wait_ns 7.99 ms), started at once when that ended; then reads another
#          file at 2, 3 and 4 ms, in the replay right after that read (5-7 ms late).
# Before, the reads' lateness was all wake-up lateness: FELL BEHIND, "its latencies are
# doubtful", for a replay whose only lateness was the target's slow writes. The waits are
# counted apart, and the reads they held up after them are the reader's backlog (the pace
# not kept: the storage's). The same result without the waits (a replayer that woke up 8 ms
# late) still falls behind. And when only 3 of the 500 ops waited, the percentiles shown are
# of those 3 waits, not of all the ops (whose p99 is 0: "3 ops, p99 0 ns, max 7.99 ms").
# usage: report_order_wait_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup order-wait "$@"

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
orig = ["100 101 0 10 openat path=/db/log flags=O_RDWR|O_CREAT mode=0644 ret=3",
        "100 102 0 10 openat path=/db/other flags=O_RDONLY ret=4"]
rep = ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/ow",
       "meta replay.engine sync", "meta replay.timing original",
       "100 101 0 10 openat path=/db/log flags=O_RDWR|O_CREAT mode=0644 ret=3 sched=0",
       "100 102 0 10 openat path=/db/other flags=O_RDONLY ret=4 sched=0"]
nowait = list(rep)
few = list(rep)
M = 8 << 20
for i in range(100):
    t = 1000 + i * 10000
    w = "pwrite64 fd=3 path=/db/log off=%d len=%d ret=%d" % (i * M, M, M)
    r = "pread64 fd=3 path=/db/log off=%d len=4096 ret=4096" % ((i + 1) * M - 4096)
    orig.append("100 101 %d %d %s" % (t, t + 100, w))
    orig.append("100 102 %d %d %s" % (t + 1000, t + 1020, r))
    o = "pread64 fd=4 path=/db/other off=0 len=4096 ret=4096"
    for k in (2, 3, 4):
        orig.append("100 102 %d %d %s" % (t + k * 1000, t + k * 1000 + 20, o))
    for out, wait in ((rep, 7990), (nowait, 0), (few, 7990 if i < 3 else 0)):
        out.append("100 101 %d %d %s sched=%d" % (t, t + 9000, w, t))
        out.append("100 102 %d %d %s sched=%d wait=%d" % (t + 9005, t + 9025, r, t + 1000, wait))
        for k in (2, 3, 4):
            s = t + 9025 + (k - 1) * 25
            out.append("100 102 %d %d %s sched=%d" % (s, s + 20, o, t + k * 1000))
open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
open(d + "/n.txt", "w").write("\n".join(nowait) + "\n")
open(d + "/f.txt", "w").write("\n".join(few) + "\n")
PY
mk_pair
"$MKTRACE" "$T/n.reel" <"$T/n.txt" || exit 1
"$MKTRACE" "$T/f.reel" <"$T/f.txt" || exit 1
"$IOREEL" report "$T/o.reel" "$T/f.reel" >"$T/f.out" || exit 1
"$IOREEL" report --json "$T/o.reel" "$T/f.reel" >"$T/f.json" || exit 1
"$IOREEL" report --html "$T/f.html" "$T/o.reel" "$T/f.reel" >/dev/null || exit 1
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/r.out" || exit 1
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/r.json" || exit 1
"$IOREEL" report "$T/o.reel" "$T/n.reel" >"$T/n.out" || exit 1
cat "$T/r.out"
python3 - "$T" <<'PY'
import json, re, sys
d = sys.argv[1]
text, ntext = open(d + "/r.out").read(), open(d + "/n.out").read()
lat = json.load(open(d + "/r.json"))["runs"][1]["lateness"]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


check(not lat["fell_behind"] and "FELL BEHIND" not in text and "fell behind" not in text,
      "the waits taken for late wake-ups: %r" % lat)
# the reads after each wait, 5-7 ms late: held up by it, the reader's backlog
check(lat["pace_not_kept"] and 6900000 <= lat["backlog_p99_ns"] <= 7100000,
      "backlog p99 %d ns, want ~7.0 ms, pace not kept: %r" % (lat["backlog_p99_ns"], lat))
check(lat["order_ops"] == 100, "order_ops %d, want 100" % lat["order_ops"])
check(abs(lat["order_p99_ns"] - 7990000) <= 0.02 * 7990000 and lat["order_max_ns"] >= 7900000,
      "order wait p99 %d ns, want ~7.99 ms" % lat["order_p99_ns"])
check(lat["wake_p99_ns"] < 200000, "wake-up lateness p99 %d ns, want ~100 us" % lat["wake_p99_ns"])
check(re.search(r"^       and waiting for ops of other threads they are kept after .*: 100 ops, "
                r"their wait p50 7\.[89][0-9]* ms, p99 7\.[89][0-9]* ms", text, re.M),
      "text: the order waits' line")
# 3 ops of 500 waited: their percentiles, not the all-ops p99 (0)
ftext = open(d + "/f.out").read()
flat = json.load(open(d + "/f.json"))["runs"][1]["lateness"]
check(flat["order_ops"] == 3 and abs(flat["order_p99_ns"] - 7990000) <= 0.02 * 7990000
      and abs(flat["order_p50_ns"] - 7990000) <= 0.02 * 7990000,
      "3 waits: json order %r, want 3 ops, p50 and p99 ~7.99 ms" % flat)
check(re.search(r"^       and waiting for ops of other threads they are kept after .*: 3 ops, "
                r"their wait p50 7\.[89][0-9]* ms, p99 7\.[89][0-9]* ms, max 7\.[89]", ftext,
                re.M), "text: 3 waits' line shows their percentiles")
check(re.search(r"3 ops waited for ops of other threads: their wait p99 7\.[89]",
                open(d + "/f.html").read()), "html: 3 waits' title")
check(re.search(r"^  - on /var/tmp/ow, 100 ops waited for ops of other threads they are kept "
                r"after .*, 7\.[89][0-9]* ms at p50 and 7\.[89][0-9]* ms at most, which puts "
                r"the p99 of all ops' waits over 1\.00 ms", text, re.M),
      "text: the order waits' note")
# without the waits, the same lateness is the replayer's
check(re.search(r"replay on /var/tmp/ow fell behind its schedule \(wake-up lateness p99 "
                r"8\.[0-9]+ ms", ntext, re.M), "no waits: want FELL BEHIND at 8 ms")
check("waiting for ops of other threads" not in ntext, "no waits: no order waits shown")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
