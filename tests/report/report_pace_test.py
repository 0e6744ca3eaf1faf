#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report_pace_test.py IOREEL MKTRACE - the report tells the two causes of lateness apart
(report_mktrace ... pace writes the traces and their exact lateness):

- "slow": fsync on the target takes ~4x the original's, so ops wait for their thread's
  previous op; the threads start within ~30 us once free. The report says the application
  could not keep its pace (backlog), and does NOT call the latencies doubtful; the backlog
  p99 matches the true lateness p99, the wake-up lateness stays under 1 ms.
- "woke": threads are always free, every op starts ~3 ms late. The report says it fell
  behind and its latencies are doubtful; backlog is 0 and wake-up lateness p99 matches the
  true lateness p99.
- "hiccup": a target far faster than the original's, on time but for one op per thread
  that starts 200 ms late; the ops after it start as soon as their thread is free, late
  until the target's speed has made up for it. That lateness is the replayer's, carried
  forward: wake-up lateness, never "could not keep its pace" (the backlog stays under 1 ms).
Both in JSON (keys and verdict tags) and in the text verdict lines. Exit 0 pass, 1 fail.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(got, want, rel):
    return abs(got - want) <= rel * max(abs(want), 1)


def main():
    ioreel, mktrace = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="ioreel-report-pace.", dir="/dev/shm")
    try:
        subprocess.run([mktrace, tmp, "300", "pace"], check=True, stdout=subprocess.DEVNULL)
        truth = json.load(open(os.path.join(tmp, "truth.json")))
        paths = [truth[n]["path"] for n in ("orig", "slow", "woke", "hiccup")]
        doc = json.loads(subprocess.run([ioreel, "report", "--json"] + paths, check=True,
                                        capture_output=True, text=True).stdout)
        text = subprocess.run([ioreel, "report"] + paths, check=True, capture_output=True,
                              text=True).stdout
        print(text)
        checks(doc, text, truth)
    finally:
        shutil.rmtree(tmp)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


def checks(doc, text, truth):
    rel = 2 * doc["percentile_rel_error"]
    slow, woke = doc["runs"][1]["lateness"], doc["runs"][2]["lateness"]
    hiccup = doc["runs"][3]["lateness"]
    for name, lat in (("slow", slow), ("woke", woke), ("hiccup", hiccup)):
        for k in ("backlog_p50_ns", "backlog_p99_ns", "backlog_max_ns", "wake_p50_ns",
                  "wake_p99_ns", "wake_max_ns", "pace_not_kept", "fell_behind"):
            check(k in lat, "%s lateness has %s" % (name, k))
    if failures:
        return

    check(slow["pace_not_kept"] and not slow["fell_behind"],
          "slow: pace not kept, not fell behind: %r" % slow)
    check(close(slow["backlog_p99_ns"], truth["slow"]["lateness"]["p99"], rel),
          "slow backlog p99 %d vs true lateness p99 %d" %
          (slow["backlog_p99_ns"], truth["slow"]["lateness"]["p99"]))
    check(slow["wake_p99_ns"] < 1000000, "slow wake p99 %d under 1 ms" % slow["wake_p99_ns"])

    check(woke["fell_behind"] and not woke["pace_not_kept"],
          "woke: fell behind, pace kept: %r" % woke)
    check(woke["backlog_max_ns"] == 0, "woke backlog max %d is 0" % woke["backlog_max_ns"])
    check(close(woke["wake_p99_ns"], truth["woke"]["lateness"]["p99"], rel),
          "woke wake p99 %d vs true lateness p99 %d" %
          (woke["wake_p99_ns"], truth["woke"]["lateness"]["p99"]))

    check(truth["hiccup"]["lateness"]["p99"] > 1000000,
          "hiccup: the crafted lateness p99 %d is over 1 ms" % truth["hiccup"]["lateness"]["p99"])
    check(not hiccup["pace_not_kept"], "hiccup: pace kept: %r" % hiccup)
    check(hiccup["backlog_p99_ns"] < 1000000,
          "hiccup backlog p99 %d under 1 ms" % hiccup["backlog_p99_ns"])
    check(close(hiccup["wake_p99_ns"], truth["hiccup"]["lateness"]["p99"], rel),
          "hiccup wake p99 %d vs true lateness p99 %d" %
          (hiccup["wake_p99_ns"], truth["hiccup"]["lateness"]["p99"]))

    tags = [(v["tag"], v["run"]) for v in doc["verdict"]]
    check(("pace_not_kept", 3) not in tags, "hiccup: no pace_not_kept verdict: %r" % tags)
    check(("pace_not_kept", 1) in tags and ("fell_behind", 1) not in tags,
          "slow: a pace_not_kept verdict and no fell_behind: %r" % tags)
    check(("fell_behind", 2) in tags and ("pace_not_kept", 2) not in tags,
          "woke: a fell_behind verdict and no pace_not_kept: %r" % tags)

    check(re.search(r"^  - on /var/tmp/slow the application could not keep its original pace: "
                    r"ops waited for their thread's previous op \(backlog p99 [0-9.]+ s",
                    text, re.M), "text: pace line for slow")
    check(not re.search(r"/var/tmp/slow.*doubtful", text), "text: slow not called doubtful")
    check("back to back" not in text,
          "text: no closed-loop hint (the original thought 100 us between its ops)")
    check(re.search(r"^  - replay on /var/tmp/woke fell behind its schedule \(wake-up lateness "
                    r"p99 [0-9.]+ ms.*doubtful$", text, re.M), "text: woke fell behind")
    check(re.search(r"^       of which waiting for the previous op .*: p99 0 ns; wake-up "
                    r"lateness p50 [0-9.]+ ms, p99 [0-9.]+ ms", text, re.M),
          "text: woke's split line")


if __name__ == "__main__":
    sys.exit(main())
