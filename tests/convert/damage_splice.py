#!/usr/bin/env python3
"""A chunk spliced out whole, or repeated: every command that reports damage (info, dump,
slice, replay, report) says the same loss, the footer's total less the ops read, and no
region's line contradicts it.

Envelopes are contiguous, so a chunk cut out whole leaves no damaged region where it was:
only the footer's total tells that its ops are gone (the trailer, pointing at the footer's
old offset, is the one region). A repeated first ops chunk is rejected (it defines paths
again) but lost nothing: its ops were read the first time.

usage: damage_splice.py IOREEL MKTRACE
"""
import json
import os
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


def words_after(line, marker):
    """What a summary line says after marker, e.g. '16 ops lost (...)'."""
    i = line.find(marker)
    return line[i + len(marker):] if i >= 0 else None


def one(case, path, lost, tmp):
    rc, out, err = run("info", "--json", path)
    info = json.loads(out)
    check(case, rc == 1, "info exited %d" % rc)
    check(case, info["ops_lost"] == lost, "info: ops_lost %r, want %d" % (info["ops_lost"], lost))
    rc, out, err = run("info", path)
    line = [l for l in err.splitlines() if " is damaged at byte " in l]
    check(case, len(line) == 1, "info stderr: %r" % err)
    if not line:
        return
    said = words_after(line[0], "): ")
    want = "%d ops lost" % lost if lost else "nothing lost"
    check(case, said.startswith(want), "info says %r, want %r" % (said, want))
    check(case, ("damage: 1 region(s), " + said) in out or ("damage: 2 region(s), " + said) in out,
          "info text's damage line differs from its stderr line")

    rc, out, err = run("dump", path)
    lines = err.splitlines()
    check(case, rc == 1, "dump exited %d" % rc)
    check(case, lines and words_after(lines[-1], "): ") == said,
          "dump's last line %r does not say %r" % (lines[-1:], said))
    for l in lines[:-1]:
        # a region says what it held, never what the trace lost
        check(case, " lost" not in l and "every op" not in l, "dump region line: %r" % l)

    rc, out, err = run("slice", path, "-o", os.path.join(tmp, case + ".slice.reel"))
    check(case, rc == 1, "slice exited %d" % rc)
    check(case, ("): " + said) in err, "slice does not say %r: %r" % (said, err))
    if lost:
        check(case, "how many in the window is unknown" in err,
              "slice places ops that no region held: %r" % err)

    rc, out, err = run("replay", path, "--target", os.path.join(tmp, "t-" + case), "--timing",
                       "afap", "-o", os.path.join(tmp, case + ".result.reel"))
    check(case, rc == 1, "replay exited %d" % rc)
    summary = [l for l in (out + err).splitlines() if "TRACE DAMAGED" in l]
    check(case, len(summary) == 1 and ("): " + said) in summary[0],
          "replay: %r, want %r" % (summary, said))
    for l in err.splitlines():
        if "trace damaged at byte" in l:
            check(case, " lost" not in l and "every op" not in l, "replay region line: %r" % l)

    rc, out, err = run("report", path)
    check(case, rc == 1, "report exited %d" % rc)
    check(case, ("): " + said) in err, "report does not say %r: %r" % (said, err))


def main():
    tmp = tempfile.mkdtemp(prefix="ioreel-convert-splice.", dir="/dev/shm")
    try:
        whole = os.path.join(tmp, "whole.reel")
        subprocess.run([MKTRACE, whole, "--many", str(N)], check=True)
        data = open(whole, "rb").read()
        cs, _ = chunks(data)
        ops = [c for c in cs if c[1] == 2]
        if len(ops) != 3:
            print("FAIL: unexpected layout %r" % cs)
            return 1
        start, end = ops[0][0], ops[0][3]
        cut = os.path.join(tmp, "cut.reel")
        open(cut, "wb").write(data[:start] + data[end:])
        one("cut", cut, 16, tmp)
        dup = os.path.join(tmp, "dup.reel")
        open(dup, "wb").write(data[:end] + data[start:end] + data[end:])
        one("dup", dup, 0, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    if fails:
        return 1
    print("PASS")
    return 0


sys.exit(main())
