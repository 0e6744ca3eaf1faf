#!/usr/bin/env python3
"""Ground truth from a strace -f -ttt -T -y log, independent of ioreel's parser: for each
syscall in NAMES whose fd annotation lies under PREFIX, the (name, path) counts, and the
(offset, len, ret) of each pwrite64/pread64 in log order per path. Prints JSON."""
import collections, json, re, sys

log, prefix = sys.argv[1], sys.argv[2]
names = {"read", "write", "pread64", "pwrite64", "fsync", "fdatasync", "close", "lseek"}
call = re.compile(r'^(?:\[pid +)?\d+\]? +[\d.]+ ([a-z0-9_]+)\((\d+)<([^>]*)>(.*)$')
counts = collections.Counter()
positioned = collections.defaultdict(list)
for line in open(log, errors="replace"):
    m = call.match(line)
    if not m or m.group(1) not in names or not m.group(3).startswith(prefix):
        continue
    name, path, rest = m.group(1), m.group(3), m.group(4)
    counts["%s %s" % (name, path)] += 1
    if name in ("pread64", "pwrite64"):
        r = re.search(r', (\d+), (\d+)\) += (-?\d+)', rest)
        if r:
            positioned["%s %s" % (name, path)].append(
                [int(r.group(2)), int(r.group(1)), int(r.group(3))])
json.dump({"counts": counts, "positioned": positioned}, sys.stdout)
