#!/bin/bash
# report: a replay that both could not keep the app's pace (backlog) and woke up late says
# both, the storage's backlog first. Two threads, as Redis's main thread and its fsyncs:
#  aof:  bursts of 20 fdatasyncs 1 ms apart, 100 us in the original, 1.5 ms in the replay:
#        each waits for the one before (backlog up to ~9.6 ms), started 5 us after it.
#  data: a pread every 1 ms, free each time, always started 3 ms late: wake-up lateness.
# The verdict said only "fell behind, its latencies are doubtful" and left PACE NOT KEPT out
# (text, JSON tags and pace_not_kept, HTML), hiding that the storage was too slow for the app.
# usage: report_pace_both_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup pace-both "$@"

python3 - "$T" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
orig = ["100 100 0 10 openat path=/db/aof flags=O_WRONLY|O_APPEND ret=3",
        "100 101 0 10 openat path=/db/data flags=O_RDONLY ret=4"]
rep = ["meta replay.of %s/o.reel" % d, "meta replay.targets /var/tmp/both",
       "meta replay.engine sync", "meta replay.timing original"] + \
      [l + " sched=1" for l in orig]
backlog, wake = [], []
t, rfree = 1000, 0  # the original's clock and the replay's aof thread free, us
for b in range(10):
    for i in range(20):
        orig.append("100 100 %d %d fdatasync fd=3 path=/db/aof ret=0" % (t, t + 100))
        st = max(t, rfree) + 5
        rep.append("100 100 %d %d fdatasync fd=3 path=/db/aof ret=0 sched=%d" %
                   (st, st + 1500, t))
        backlog.append(st - t)
        wake.append(0)
        rfree = st + 1500
        t += 1000
    t += 30000
for i in range((t - 1000) // 1000):
    s = 1000 + i * 1000
    op = "pread64 fd=4 path=/db/data off=%d len=4096 ret=4096" % (i * 4096)
    orig.append("100 101 %d %d %s" % (s, s + 20, op))
    rep.append("100 101 %d %d %s sched=%d" % (s + 3000, s + 3020, op, s))
    backlog.append(0)
    wake.append(3000)


def p99(v):
    v = sorted(v)
    return v[int(0.99 * len(v))] * 1000


open(d + "/o.txt", "w").write("\n".join(orig) + "\n")
open(d + "/r.txt", "w").write("\n".join(rep) + "\n")
json.dump({"backlog_p99": p99(backlog), "wake_p99": p99(wake)}, open(d + "/truth.json", "w"))
PY
mk_pair
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/r.txt.out" || exit 1
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" >"$T/r.json" || exit 1
"$IOREEL" report --html "$T/r.html" "$T/o.reel" "$T/r.reel" >/dev/null || exit 1
cat "$T/r.txt.out"
python3 - "$T" <<'PY'
import json, re, sys
d = sys.argv[1]
truth = json.load(open(d + "/truth.json"))
doc = json.load(open(d + "/r.json"))
text = open(d + "/r.txt.out").read()
html = open(d + "/r.html").read()
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def near(got, want):
    return abs(got - want) <= 0.02 * want


lat = doc["runs"][1]["lateness"]
check(lat["pace_not_kept"] and lat["fell_behind"], "JSON: want pace not kept and fell behind: %r"
      % lat)
check(near(lat["backlog_p99_ns"], truth["backlog_p99"]),
      "backlog p99 %d ns, want %d" % (lat["backlog_p99_ns"], truth["backlog_p99"]))
check(near(lat["wake_p99_ns"], truth["wake_p99"]),
      "wake-up lateness p99 %d ns, want %d" % (lat["wake_p99_ns"], truth["wake_p99"]))

tags = [v["tag"] for v in doc["verdict"] if v["run"] == 1]
check("pace_not_kept" in tags and "fell_behind" in tags and
      tags.index("pace_not_kept") < tags.index("fell_behind"),
      "JSON: want pace_not_kept, then fell_behind, for run 1: %r" % tags)

# the text verdict: the pace first, with its number, then the late wake-ups with theirs,
# and what that leaves of the latencies
pace = re.search(r"^  - on /var/tmp/both the application could not keep its original pace: "
                 r"ops waited for their thread's previous op \(backlog p99 9\.[0-9]+ ms > "
                 r"1\.00 ms.*the latencies are real", text, re.M)
behind = re.search(r"^  - replay on /var/tmp/both also fell behind its schedule \(wake-up "
                   r"lateness p99 3\.[0-9]+ ms > 1\.00 ms.*measured on its own", text, re.M)
check(pace, "text: the pace verdict with backlog p99")
check(behind, "text: the fell-behind verdict with wake-up lateness p99, after the pace")
check(not pace or not behind or pace.start() < behind.start(), "text: the pace line first")
check(not re.search(r"both.*: its latencies are doubtful$", text, re.M),
      "text: not the bare 'its latencies are doubtful' of a replay that only fell behind")
# the runs' summary says what the verdict says, each mark beside its number: not FELL
# BEHIND on the whole lateness, most of which is the target's backlog
check(re.search(r"^       of which waiting for the previous op .*: p99 9\.[0-9]+ ms "
                r"\*\* PACE NOT KEPT \*\*; wake-up lateness p50 [0-9.]+ ms, p99 3\.[0-9]+ ms, "
                r"max [0-9.]+ ms \*\* FELL BEHIND \*\*$", text, re.M),
      "text: PACE NOT KEPT and FELL BEHIND in the run's summary, beside their numbers")
check(not re.search(r"^     lateness .*FELL BEHIND", text, re.M),
      "text: no FELL BEHIND on the whole lateness")

hp, hb = html.find('<li class="v-pace_not_kept">'), html.find('<li class="v-fell_behind">')
check(0 <= hp < hb, "HTML: the pace verdict, then the fell-behind one")
check("pace not kept" in html, "HTML: pace not kept in the runs table")

for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else "%d checks failed" % len(fails))
sys.exit(1 if fails else 0)
PY
