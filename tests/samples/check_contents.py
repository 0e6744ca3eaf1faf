#!/usr/bin/env python3
"""check_contents.py INFO_JSON DUMP_JSONL SCRATCH PROGRAM DBFILES_RE MIN_THREADS: the checks
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
    info_path, dump_path, scratch, program, dbfiles, min_threads = sys.argv[1:7]
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


if __name__ == "__main__":
    sys.exit(main())
