#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report_json_test.py IOREEL MKTRACE - "ioreel report --json" on crafted traces whose exact
statistics are known (report_mktrace writes them to truth.json):

- the document parses, with the documented keys;
- counts and totals are exact, percentiles within the stated relative error, max exact;
- fsync on the "fast" replay is "faster", with p99 and p50 ratios matching the truth;
- nothing changes on the "equal" replay ("unchanged");
- the "late" replay fell behind, the others did not; lateness p99 matches the truth;
- async completions are paired with their submissions (uring_read);
- socket ops are left out; the replays' target roots are stripped from file paths;
- the verdict carries a "faster" line for fsync with the right speed-up, in words and number;
- the afap replay that filled both CPUs (its CPU meta) is said to be CPU-bound, no other;
  staged (in segments), by its workers' CPU alone.
Exit 0 pass, 1 fail.
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
    return abs(got - want) <= rel * max(abs(want), 1) + 1e-9


def main():
    ioreel, mktrace = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="ioreel-report-json.", dir="/dev/shm")
    try:
        subprocess.run([mktrace, tmp, "1500"], check=True)
        truth = json.load(open(os.path.join(tmp, "truth.json")))
        names = ["orig", "fast", "equal", "late", "afap"]
        out = subprocess.run(
            [ioreel, "report", "--json"] + [truth[n]["path"] for n in names],
            check=True, capture_output=True, text=True).stdout
        doc = json.loads(out)
        run_checks(doc, truth, names)
        check_staged(ioreel, mktrace, tmp)
    finally:
        shutil.rmtree(tmp)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


def run_checks(doc, truth, names):
    rel = doc["percentile_rel_error"]
    check(abs(rel - 2 ** -8) < 1e-9, "percentile_rel_error is 2^-8, got %r" % rel)
    check(doc["ioreel_report"] == 1, "document version")
    runs = doc["runs"]
    check(len(runs) == 5, "5 runs")
    check([r["role"] for r in runs] == ["original"] + ["replay"] * 4, "roles")
    check(runs[1]["label"] == "/dev/shm/t", "replay label from replay.targets")
    check(runs[1]["meta"].get("replay.engine") == "sync", "meta copied")

    for r, name in zip(runs, names):
        t = truth[name]
        check(r["ops_nonfile"] == 300, "%s: socket ops left out (%d)" % (name, r["ops_nonfile"]))
        check(r["async_unmatched"] == 0, "%s: every completion paired" % name)
        for op, want in t["ops"].items():
            got = r["ops_by_type"].get(op)
            check(got is not None, "%s: op %s present" % (name, op))
            if got is None:
                continue
            check(got["count"] == want["count"], "%s %s count %d != %d" %
                  (name, op, got["count"], want["count"]))
            check(got["total_ns"] == want["total"], "%s %s total exact" % (name, op))
            check(got["max_ns"] == want["max"], "%s %s max exact" % (name, op))
            for q in ("p50", "p90", "p99", "p999"):
                check(close(got[q + "_ns"], want[q], rel),
                      "%s %s %s %d vs exact %d" % (name, op, q, got[q + "_ns"], want[q]))
            vs = got["vs_original"]
            if name == "orig":
                check(vs is None, "original has no comparison")
                continue
            o = truth["orig"]["ops"][op]
            for q in ("p50", "p99"):
                # Each side within rel: the ratio within about 2 * rel.
                check(close(vs["ratio_" + q], want[q] / o[q], 2.1 * rel),
                      "%s %s ratio_%s %.5f vs %.5f" % (name, op, q, vs["ratio_" + q],
                                                      want[q] / o[q]))
            expect = "faster" if (name == "fast" and op == "fsync") else "unchanged"
            check(vs["change"] == expect, "%s %s change %s, expected %s" %
                  (name, op, vs["change"], expect))
            check(0 <= vs["ks_d"] <= 1 and vs["ks_d_max_error"] < 0.05, "%s %s KS sane" % (name, op))
            if expect == "faster":
                check(vs["ks_d"] > 0.99, "disjoint fsync distributions: KS D ~1")
            else:
                check(vs["ks_d"] < 0.1, "%s %s same distribution: KS D small (%.3f)" %
                      (name, op, vs["ks_d"]))
        lat = r["lateness"]
        if name == "orig":
            check(lat is None, "original has no lateness")
            continue
        check(lat["ops"] > 0, "%s lateness counted" % name)
        check(close(lat["p99_ns"], t["lateness"]["p99"], rel),
              "%s lateness p99 %d vs %d" % (name, lat["p99_ns"], t["lateness"]["p99"]))
        check(lat["fell_behind"] == (name == "late"), "%s fell_behind %r" % (name, lat["fell_behind"]))

    # Files: replays name them under their target; the report matches them to the original's.
    f0 = runs[0]["files"]
    check(f0 and f0[0]["path"] == "/data/db/wal", "hottest file is the WAL")
    for r in runs[1:]:
        check(r["files"] and r["files"][0]["path"] == "/data/db/wal" and
              r["files"][0]["ops"] == f0[0]["ops"], "%s: WAL found under the target" % r["label"])

    verdict = doc["verdict"]
    tags = [(v["tag"], v["run"], v["op"]) for v in verdict]
    faster = [v for v in verdict if v["tag"] == "faster"]
    check(len(faster) == 1 and faster[0]["run"] == 1 and faster[0]["op"] == "fsync",
          "exactly one faster line, fsync on run 1: %r" % tags)
    if faster:
        v = faster[0]
        o, f = truth["orig"]["ops"]["fsync"], truth["fast"]["ops"]["fsync"]
        m = re.match(r"fsync (p50|p99) falls from .* on /dev/shm/t \(([0-9.]+)× faster", v["text"])
        check(m is not None, "faster line wording: %r" % v["text"])
        if m:
            q = m.group(1)
            want = o[q] / f[q]
            check(close(v["speedup"], want, 2.1 * rel), "speedup %.1f vs exact %.1f" %
                  (v["speedup"], want))
            check(close(float(m.group(2)), want, 0.01), "speed-up in words %s vs %.1f" %
                  (m.group(2), want))
    check(not any(t in ("faster", "slower", "tail_only", "mixed") and run in (2, 3, 4)
                  for t, run, _ in tags), "no change claimed for equal/late/afap: %r" % tags)
    check(any(t == "unchanged" and run == 2 for t, run, _ in tags), "equal replay: unchanged line")
    behind = [v for v in verdict if v["tag"] == "fell_behind"]
    check(len(behind) == 1 and behind[0]["run"] == 3 and "fell behind" in behind[0]["text"],
          "one fell-behind line, for the late replay")
    check(any(t == "dominant" for t, _, _ in tags), "what dominates the original's time")
    errs = [v for v in verdict if v["tag"] == "errors"]
    check(len(errs) == 1 and errs[0]["run"] == 1 and "30 more failed ops" in errs[0]["text"],
          "new failures said for the fast replay only: %r" % [v["text"] for v in errs])
    check(runs[1]["ops_by_type"]["pread64"]["errors"] == 30, "errors counted per op type")
    notes = [v["text"] for v in verdict if v["tag"] == "note"]
    check(any("lost 3 events" in n for n in notes), "lost events said: %r" % notes)
    check(any(v["run"] == 4 and "as fast as possible" in v["text"] for v in verdict),
          "afap replay: said that lateness is not judged")
    bound = [v for v in verdict if v["tag"] == "cpu_bound"]
    check(len(bound) == 1 and bound[0]["run"] == 4 and "all 2 CPUs busy (95%" in bound[0]["text"]
          and "took 10% of that CPU" in bound[0]["text"],
          "CPU-bound said for the afap replay only: %r" % [v["text"] for v in bound])
    check(any("dropped O_DIRECT on 2 opens" in n and "/dev/shm/t" in n for n in notes),
          "O_DIRECT dropped said: %r" % notes)


def check_staged(ioreel, mktrace, tmp):
    """A staged afap replay (replay.segments): its workers alone filled the span; the
    dispatcher's and writer's CPU, spent in the pauses outside the span, is not counted."""
    d = os.path.join(tmp, "staged")
    os.mkdir(d)
    subprocess.run([mktrace, d, "200", "staged"], check=True, stdout=subprocess.DEVNULL)
    truth = json.load(open(os.path.join(d, "truth.json")))
    out = subprocess.run([ioreel, "report", "--json", truth["orig"]["path"],
                          truth["afap"]["path"]], check=True, capture_output=True,
                         text=True).stdout
    bound = [v["text"] for v in json.loads(out)["verdict"] if v["tag"] == "cpu_bound"]
    check(len(bound) == 1 and "all 2 CPUs busy with its ops (95%" in bound[0] and
          "took" not in bound[0], "staged afap: CPU-bound by its workers alone: %r" % bound)


if __name__ == "__main__":
    sys.exit(main())
