#!/usr/bin/env python3
"""Damage says what it cost, truthfully, in info, dump and replay alike, and every command
that met it exits 1 (info, dump, replay after replaying what it could read, report after
reporting on it, for a damaged trace and for a damaged replay result), so a script can tell.

A 40-op trace (chunks of 16, 16 and 8 ops) is damaged one place at a time: the head meta,
an ops chunk's payload and its envelope, the footer's payload and its envelope, the trailer,
and a cut in the middle of a chunk. Each command must name the byte offset and say exactly
what was lost: a damaged footer loses no op, so nothing may claim that ops were skipped.
A region's own words say what it held ("skipped 16 ops"); what the trace lost in all is the
summary's, the same line in info and dump.

usage: damage_loss.py IOREEL MKTRACE
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from reel_envelopes import chunks

IOREEL, MKTRACE = sys.argv[1], sys.argv[2]
N = 40
fails = []


def run(*args):
    p = subprocess.run([IOREEL, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(case, cond, what):
    if not cond:
        fails.append("%s: %s" % (case, what))


def one(case, data, off, ops_lost, must, must_not, tmp):
    """ops_lost: int, or None when the count cannot be known."""
    path = os.path.join(tmp, case + ".reel")
    with open(path, "wb") as f:
        f.write(data)

    rc, out, err = run("info", "--json", path)
    check(case, rc == 1, "info exited %d, want 1" % rc)
    try:
        i = json.loads(out)
    except ValueError:
        fails.append("%s: info --json is not JSON: %r" % (case, out[:200]))
        return
    check(case, i.get("damaged_regions") == 1, "info: %s regions, want 1" % i.get("damaged_regions"))
    check(case, i.get("ops_lost", "absent") == ops_lost,
          "info: ops_lost %r, want %r" % (i.get("ops_lost", "absent"), ops_lost))
    if ops_lost is not None:
        check(case, i["ops"] == N - ops_lost, "info: %d ops, want %d" % (i["ops"], N - ops_lost))
    d = (i.get("damage") or [{}])[0]
    check(case, d.get("offset") == off, "info: damage at %r, want %d" % (d.get("offset"), off))
    text = d.get("lost", "")
    for m in must:
        check(case, m in text, "info: %r lacks %r" % (text, m))
    for m in must_not:
        check(case, m not in text, "info: %r says %r" % (text, m))
    check(case, ("at byte %d" % off) in err, "info stderr lacks the offset: %r" % err)

    info_line = err.strip()

    rc, out, err = run("info", path)
    check(case, ("at byte %d: " % off) in out, "info text lacks 'at byte %d: '" % off)

    rc, out, err = run("dump", "--format", "jsonl", path)
    lines = [l for l in err.splitlines() if l]
    check(case, rc == 1, "dump exited %d, want 1" % rc)
    # one line for the region, then what the trace lost, in info's words
    check(case, len(lines) == 2, "dump: %d damage lines, want 2: %r" % (len(lines), lines))
    check(case, lines[-1:] == [info_line], "dump ends %r, info says %r" % (lines[-1:], info_line))
    if lines:
        check(case, lines[0].startswith("ioreel: damaged trace at byte %d: " % off),
              "dump: %r" % lines[0])
        for m in must:
            check(case, m in lines[0], "dump: %r lacks %r" % (lines[0], m))
        for m in must_not:
            check(case, m not in lines[0], "dump: %r says %r" % (lines[0], m))
    if ops_lost is not None:
        got = sum(1 for l in out.splitlines() if l)
        check(case, got == N - ops_lost, "dump: %d ops, want %d" % (got, N - ops_lost))

    target = os.path.join(tmp, "t-" + case)
    result = os.path.join(tmp, case + ".result.reel")
    rc, out, err = run("replay", path, "--target", target, "--timing", "afap", "-o", result)
    allout = out + err
    check(case, rc == 1, "replay exited %d, want 1" % rc)
    check(case, os.path.exists(result), "replay wrote no result")
    check(case, ("trace damaged at byte %d" % off) in err,
          "replay stderr lacks the damage line: %r" % err[-600:])
    rc, out, err = run("report", path)
    check(case, rc == 1, "report exited %d, want 1" % rc)
    check(case, ("%s is damaged at byte %d" % (path, off)) in err,
          "report stderr lacks the damage line: %r" % err)
    check(case, ("damaged at byte %d" % off) in out, "report text does not name the damage")
    summary = [l for l in allout.splitlines() if "TRACE DAMAGED" in l]
    check(case, "damaged chunks skipped" not in allout, "replay still says 'damaged chunks skipped'")
    check(case, len(summary) == 1, "replay: no TRACE DAMAGED line: %r" % allout[-600:])
    if summary:
        s = summary[0]
        check(case, ("at byte %d" % off) in s, "replay: %r lacks the offset" % s)
        if ops_lost == 0:
            check(case, "no ops lost" in s or "nothing lost" in s, "replay: %r" % s)
            check(case, "not replayed" not in s, "replay claims ops were not replayed: %r" % s)
        elif ops_lost is not None:
            check(case, ("%d ops lost" % ops_lost) in s, "replay: %r" % s)
        else:
            check(case, "unknown number of ops lost" in s, "replay: %r" % s)
    m = re.search(r"ops: (\d+) in trace", allout)
    if ops_lost is not None:
        check(case, m and int(m.group(1)) == N - ops_lost, "replay read %s ops" % (m and m.group(1)))


def damaged_result(whole, tmp):
    """A whole trace replayed exits 0; its result damaged (the footer: its one ops chunk
    damaged would leave nothing to compare, another failure), report on both exits 1."""
    result = os.path.join(tmp, "whole.result.reel")
    rc, out, err = run("replay", whole, "--target", os.path.join(tmp, "t-whole"), "--timing",
                       "afap", "-q", "-o", result)
    check("whole", rc == 0, "replay of a whole trace exited %d: %s" % (rc, err))
    rc, out, err = run("report", whole, result)
    check("whole", rc == 0 and not err, "report on whole traces exited %d: %s" % (rc, err))
    data = open(result, "rb").read()
    cs, _ = chunks(data)
    at = [c for c in cs if c[1] == 3][0][0]
    b = bytearray(data)
    b[at + 40] ^= 0xFF
    open(result, "wb").write(bytes(b))
    rc, out, err = run("report", whole, result)
    check("result", rc == 1, "report on a damaged result exited %d, want 1" % rc)
    check("result", ("%s is damaged at byte %d" % (result, at)) in err,
          "report stderr lacks the damage line: %r" % err)


def main():
    tmp = tempfile.mkdtemp(prefix="ioreel-convert-loss.", dir="/dev/shm")
    try:
        whole = os.path.join(tmp, "whole.reel")
        subprocess.run([MKTRACE, whole, "--many", str(N)], check=True)
        data = open(whole, "rb").read()
        cs, trailer = chunks(data)
        ops = [c for c in cs if c[1] == 2]
        footer = [c for c in cs if c[1] == 3][0]
        if len(ops) != 3 or cs[0][1] != 1:
            print("FAIL: unexpected layout %r" % cs)
            return 1

        def flip(at):
            b = bytearray(data)
            b[at] ^= 0xFF
            return bytes(b)

        # a region says what it held ("skipped"); what the trace lost is the summary's
        no_ops = (["no ops in it"], ["skipped 1", "ops of bytes", "any ops", "ops lost"])
        footer_words = ["footer"]
        one("footer_payload", flip(footer[0] + 40), footer[0], 0, no_ops[0] + footer_words,
            no_ops[1] + ["truncated"], tmp)
        one("footer_envelope", flip(footer[0] + 9), footer[0], 0, no_ops[0] + footer_words,
            no_ops[1] + ["truncated"], tmp)
        one("meta_payload", flip(cs[0][0] + 34), 16, 0, no_ops[0] + ["head meta"],
            no_ops[1] + ["footer"], tmp)
        one("ops_payload", flip(ops[1][0] + 40), ops[1][0], ops[1][2], ["skipped 16 ops"],
            ["footer", "no ops in it"], tmp)
        one("ops_envelope", flip(ops[1][0] + 9), ops[1][0], ops[1][2], ["skipped 16 ops"],
            ["footer", "no ops in it"], tmp)
        one("trailer", flip(trailer + 5), trailer, 0, ["nothing skipped"], ["ops lost"], tmp)
        one("cut", data[:ops[2][0] + 40], ops[2][0], None,
            ["truncated", "ends at byte %d" % (ops[2][0] + 40), "footer"], ["no ops in it"], tmp)
        damaged_result(whole, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    if fails:
        return 1
    print("PASS")
    return 0


sys.exit(main())
