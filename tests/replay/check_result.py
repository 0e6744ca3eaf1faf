#!/usr/bin/env python3
"""check_result.py ORIG RESULT [--prefix P]: the result trace of a replay has exactly
the ops of the original per (pid, tid), same types in the same order, every op with a
scheduled time, a start not before it (bar clock granularity), and an end not before its
start; I/O on pipes, sockets and devices (no path) is left out of both, as the replay leaves
it out. Reads both with "ioreel dump --format jsonl" ($IOREEL)."""
import json
import os
import subprocess
import sys
from collections import defaultdict

IOREEL = os.environ.get("IOREEL", "build/ioreel")


PREFIX = None


def ops(path):
    out = subprocess.run([IOREEL, "dump", "--format", "jsonl", path], check=True,
                         capture_output=True, text=True).stdout
    per = defaultdict(list)
    for line in out.splitlines():
        o = json.loads(line)
        if PREFIX and not any((o.get(k) or "").startswith(PREFIX) for k in ("path", "path2")):
            continue
        # I/O on a pipe, a socket or a device is not replayed (think time)
        if o["fd_kind"] in ("chr", "fifo", "sock", "other") and not o.get("path"):
            continue
        per[(o["pid"], o["tid"])].append(o)
    return per


def main():
    global PREFIX
    if len(sys.argv) == 5 and sys.argv[3] == "--prefix":
        PREFIX = sys.argv[4]
    orig, res = ops(sys.argv[1]), ops(sys.argv[2])
    ok = True
    if set(orig) != set(res):
        print(f"threads differ: {sorted(orig)} vs {sorted(res)}")
        return 1
    for k in orig:
        a = [o["op"] for o in orig[k]]
        b = [o["op"] for o in res[k]]
        if a != b:
            print(f"thread {k}: original {a}\n          replay   {b}")
            ok = False
        for o in res[k]:
            if o["end_ns"] < o["start_ns"]:
                print(f"thread {k}: end before start: {o}")
                ok = False
    n = sum(len(v) for v in orig.values())
    print(f"{n} ops in {len(orig)} threads match")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
