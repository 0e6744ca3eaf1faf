#!/usr/bin/env python3
"""check_contents.py INFO_JSON DUMP_JSONL SCRATCH PROGRAM DBFILES_RE MIN_THREADS MIN_LOCKS: the checks
of test_contents.sh on "ioreel info --json" and "ioreel dump --format jsonl" output. Exits
0 pass, 1 fail, 77 when the only problem is a known capture defect recorded in the sample
(the sample must then be re-recorded)."""
import json
import re
import sys
from collections import Counter

# system dirs and what is under them ("/sys" itself too: RocksDB's realpath() readlinks
# /sys, /sys/dev, ... one component at a time)
SYSTEM = ("/etc/", "/lib/", "/lib64/", "/usr/", "/proc/", "/sys/", "/dev/", "/root/")
READS = {"read", "pread64", "readv", "preadv", "preadv2"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2"}
SYNCS = {"fsync", "fdatasync", "sync_file_range"}


def main():
    info_path, dump_path, scratch, program, dbfiles, min_threads, min_locks = sys.argv[1:8]
    info = json.load(open(info_path))
    ops = [json.loads(line) for line in open(dump_path)]
    bad = []

    def check(cond, what):
        print(("ok    " if cond else "FAIL  ") + what)
        if not cond:
            bad.append(what)

    check(info["damaged_regions"] == 0, f"no damaged regions ({info['damaged_regions']})")
    check(info["lost_events"] == 0, f"no lost events ({info['lost_events']})")
    check(info["footer_ops"] == info["ops"] == len(ops),
          f"footer count {info['footer_ops']} = ops read {info['ops']} = ops dumped {len(ops)}")
    check(info["ops"] > 1000, f"more than 1000 ops ({info['ops']})")
    types = {k: v["count"] for k, v in info["ops_by_type"].items()}
    common = sorted(k for k, n in types.items() if n >= 10)
    check(len(common) >= 5, f"at least 5 op types with >= 10 ops each ({', '.join(common)})")
    if program:
        check(program in info["meta"].get("command", ""),
              f"meta command runs {program} ({info['meta'].get('command', '')[:60]}...)")
    else:
        check(bool(info["meta"].get("pids")), f"meta pids of a -p recording "
              f"({info['meta'].get('pids')})")
    per_tid = Counter(o["tid"] for o in ops)
    busy = [t for t, n in per_tid.items() if n >= 100]
    check(len(busy) >= int(min_threads),
          f"at least {min_threads} threads with >= 100 ops ({len(busy)} of {len(per_tid)})")

    # the samples are recorded in format 1.4, with the ops of processes and locks
    check(tuple(map(int, info["format"].split("."))) >= (1, 4),
          f"format 1.4 or later ({info['format']})")
    locks = types.get("fcntl_lock", 0) + types.get("flock", 0)
    check(locks >= int(min_locks), f"at least {min_locks} file locks ({locks})")
    check_processes(ops, program, check)

    db = re.compile(dbfiles)
    kinds = Counter()
    for o in ops:
        if o["path"] and db.search(o["path"]):
            op = o["op"]
            kinds["read" if op in READS else "write" if op in WRITES else
                  "sync" if op in SYNCS else "other"] += 1
    check(kinds["read"] >= 100 and kinds["write"] >= 100 and kinds["sync"] >= 10,
          f"real I/O on the database files /{dbfiles}/: {dict(kinds)}")

    ancestors = set()
    p = scratch
    while p not in ("", "/"):
        ancestors.add(p)
        p = p.rsplit("/", 1)[0]
    ancestors.add("/")
    printable = re.compile(r"^[\x20-\x7e]+$")
    stray = Counter()
    unprintable = 0
    for o in ops:
        path = o["path"]
        if path is None:
            continue
        if not printable.match(path):
            unprintable += 1
        elif not (path == scratch or path.startswith(scratch + "/") or path in ancestors
                  or (path + "/").startswith(SYSTEM)):
            stray[path] += 1
    check(unprintable == 0, f"every path printable ({unprintable} not)")
    check(not stray, f"every path under {scratch} or a system path (strays: "
          f"{dict(stray.most_common(5))})")

    # An application renames within one directory (temp file -> final name), and the new
    # name is a file, not the directory itself.
    renames = [o for o in ops if o["op"].startswith("rename") and o["ret"] == 0]
    wrong = [o for o in renames if not o["path2"] or not printable.match(o["path2"])
             or o["path2"].rsplit("/", 1)[0] != o["path"].rsplit("/", 1)[0]]
    if renames:
        print(("ok    " if not wrong else "WRONG ") +
              f"renames keep their directory ({len(renames) - len(wrong)} of {len(renames)})")
    if bad:
        return 1
    if wrong:
        o = wrong[0]
        print(f"SKIP: the sample records {len(wrong)} renames with a wrong new path, e.g. "
              f"{o['path']} -> {o['path2']!r}: recorded while the capture read rename()'s "
              "new path from args[2] instead of args[1]; re-record with "
              "samples/<name>/record.sh")
        return 77
    return 0


def check_processes(ops, program, check):
    """A command's trace begins with its execve and ends with its exit (status 0); in a -p
    recording every fork's child has ops only after its fork, and its exit ends them."""
    exits = {o["pid"]: o for o in ops if o["op"] == "exit"}
    if program:
        first, last = ops[0], ops[-1]
        check(first["op"] == "execve" and first["ret"] == 0,
              f"the command's execve is the first op ({first['op']})")
        check(last["op"] == "exit" and last["pid"] == first["pid"] and last["ret"] == 0,
              f"the command's exit, status 0, is the last op ({last['op']} "
              f"pid {last['pid']} ret {last['ret']})")
        return
    forks = [o for o in ops if o["op"] == "fork" and o["ret"] > 0]
    check(len(forks) >= 1, f"the -p recording holds forks ({len(forks)})")
    child_first = {}
    for o in ops:
        child_first.setdefault(o["pid"], o["start_ns"])
    wrong = [f["ret"] for f in forks
             if f["ret"] not in exits or child_first.get(f["ret"], 0) < f["start_ns"]
             or exits[f["ret"]]["start_ns"] < f["start_ns"]]
    check(not wrong, f"every fork's child runs after it and exits ({len(forks)} forks, "
          f"wrong: {wrong[:5]})")


if __name__ == "__main__":
    sys.exit(main())
