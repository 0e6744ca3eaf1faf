#!/usr/bin/env python3
"""Ground truth from a strace -f -ttt -T -y log, read with plain regexes, independent of
ioreel's parser. Calls split in "<unfinished ...>" / "<... resumed>" are joined first.
Prints JSON:
  counts      "name path" -> calls, for NAMES on fds whose -y path starts with PREFIX
  positioned  "name path" -> [[offset, len, ret], ...] of pread64/pwrite64, in log order
  aio_submits [[offset, nbytes], ...] of the iocbs io_submit took; aio_res [res, ...]"""
import collections, json, re, sys

log, prefix = sys.argv[1], sys.argv[2]
names = {"read", "write", "pread64", "pwrite64", "fsync", "fdatasync", "close", "lseek"}
head = re.compile(r'^(?:\[pid +(\d+)\] |(\d+) +)?[\d.]+ (.*)$')
pending, lines = {}, []
for raw in open(log, errors="replace"):
    m = head.match(raw.rstrip("\n"))
    if not m:
        continue
    pid, text = m.group(1) or m.group(2) or "0", m.group(3)
    if text.endswith(" <unfinished ...>"):
        pending[pid] = text[: -len(" <unfinished ...>")]
        continue
    r = re.match(r'<\.\.\. [a-z0-9_]+ resumed>(.*)$', text)
    if r:
        if pid not in pending:
            continue
        text = pending.pop(pid) + r.group(1)
    lines.append(text)

call = re.compile(r'^([a-z0-9_]+)\((\d+)<([^>]*)>(.*)$')
counts = collections.Counter()
positioned = collections.defaultdict(list)
aio_submits, aio_res = [], []
for text in lines:
    if text.startswith("io_submit("):
        r = re.search(r'\) = (\d+) <', text)
        if r:
            iocbs = re.findall(r'aio_nbytes=(\d+), aio_offset=(\d+)', text)[: int(r.group(1))]
            aio_submits += [[int(o), int(n)] for n, o in iocbs]
        continue
    if text.startswith("io_getevents("):
        aio_res += [int(x) for x in re.findall(r'res=(-?\d+)', text)]
        continue
    m = call.match(text)
    if not m or m.group(1) not in names or not m.group(3).startswith(prefix):
        continue
    name, path, rest = m.group(1), m.group(3), m.group(4)
    counts["%s %s" % (name, path)] += 1
    if name in ("pread64", "pwrite64"):
        r = re.search(r', (\d+), (\d+)\) += (-?\d+)', rest)
        if r:
            positioned["%s %s" % (name, path)].append(
                [int(r.group(2)), int(r.group(1)), int(r.group(3))])
json.dump({"counts": counts, "positioned": positioned, "aio_submits": aio_submits,
           "aio_res": aio_res}, sys.stdout)
