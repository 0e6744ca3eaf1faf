#!/bin/bash
# ioreel dump on a trace written with the writer (mktrace.c): every field of every op comes
# out with its exact value in JSON lines and CSV (paths with quotes, newlines, commas and
# non-ASCII bytes stay valid JSON/CSV), and the text form shows errno names and latencies.
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
"$MKTRACE" "$dir/t.reel" || { echo "FAIL: mktrace"; exit 1; }

"$IOREEL" dump --format jsonl "$dir/t.reel" > "$dir/t.jsonl" || { echo "FAIL: dump jsonl"; exit 1; }
"$IOREEL" dump --format csv "$dir/t.reel" > "$dir/t.csv" || { echo "FAIL: dump csv"; exit 1; }
"$IOREEL" dump "$dir/t.reel" > "$dir/t.txt" || { echo "FAIL: dump text"; exit 1; }
if "$IOREEL" dump --format xml "$dir/t.reel" 2>/dev/null; then
	echo "FAIL: unknown format accepted"; exit 1
fi

python3 - "$dir" <<'PY' || exit 1
import csv, json, sys
d = sys.argv[1]
weird = "/data/we\"ird\npath,\u00e9"  # bytes c3 a9 come out as U+00C3 U+00A9
weird_json = "/data/we\"ird\npath,\u00c3\u00a9"
keys = ["op", "pid", "tid", "start_ns", "end_ns", "path", "fd", "offset", "len", "ret",
        "sched_ns", "fd_kind", "fd2", "path2", "flags", "mode", "subop", "aux", "ctx", "err"]
want = [
    dict(op="openat", pid=100, tid=100, start_ns=1000, end_ns=3000, path="/data/db", fd=-100,
         offset=0, len=0, ret=3, flags=0o102, mode=0o644),
    dict(op="pwrite64", pid=100, tid=101, start_ns=5000, end_ns=9000, path="/data/db", fd=3,
         offset=4096, len=8192, ret=8192),
    dict(op="pread64", pid=100, tid=100, start_ns=10000, end_ns=11000, path="/data/db", fd=3,
         offset=0, len=4096, ret=4096),
    dict(op="read", pid=100, tid=100, start_ns=12000, end_ns=12500, path=None, fd=3,
         offset=4096, len=100, ret=100),
    dict(op="openat", pid=200, tid=200, start_ns=13000, end_ns=14000, path=weird_json,
         fd=-100, ret=4, flags=0o1101, mode=0o600),
    dict(op="write", pid=200, tid=200, start_ns=15000, end_ns=15250, path=weird_json, fd=4,
         len=10, ret=-28, err="ENOSPC"),
    dict(op="fsync", pid=200, tid=200, start_ns=16000, end_ns=26000, path=weird_json, fd=4),
    dict(op="renameat2", pid=200, tid=200, start_ns=27000, end_ns=28000, path="/data/a",
         path2="/data/b", fd=-100, fd2=-100, flags=1),
    dict(op="fdatasync", pid=100, tid=101, start_ns=30000, end_ns=50000, path="/data/db",
         fd=3, sched_ns=29000),
]
defaults = dict(offset=0, len=0, ret=0, sched_ns=0, fd_kind="reg", fd2=-1, path2=None,
                flags=0, mode=0, subop=0, aux=0, ctx=0, err=None)
fail = 0
lines = open(d + "/t.jsonl", encoding="utf-8").read().splitlines()
if len(lines) != len(want):
    print("FAIL: %d jsonl lines, want %d" % (len(lines), len(want))); sys.exit(1)
for i, (line, w) in enumerate(zip(lines, want)):
    o = json.loads(line)
    if list(o.keys()) != keys:
        print("FAIL: line %d keys %s" % (i, list(o.keys()))); fail = 1
    full = dict(defaults); full.update(w)
    for k, v in full.items():
        if o.get(k) != v:
            print("FAIL: jsonl line %d %s = %r, want %r" % (i, k, o.get(k), v)); fail = 1
rows = list(csv.reader(open(d + "/t.csv", encoding="latin-1", newline="")))
if rows[0] != keys:
    print("FAIL: csv header %s" % rows[0]); fail = 1
if len(rows) != len(want) + 1:
    print("FAIL: %d csv rows" % len(rows)); sys.exit(1)
for i, w in enumerate(want):
    r = dict(zip(keys, rows[i + 1]))
    full = dict(defaults); full.update(w)
    for k, v in full.items():
        if k in ("path", "path2") and v is not None:
            v = v.encode("latin-1").decode("utf-8").encode("utf-8").decode("latin-1")
        sv = "" if v is None else str(v)
        if r[k] != sv:
            print("FAIL: csv row %d %s = %r, want %r" % (i, k, r[k], sv)); fail = 1
sys.exit(fail)
PY
# text: errno names instead of numbers, latency in us, both paths of a rename
grep -Eq '^ +15\.000 write +200/200 +4 +0 +10 +ENOSPC +0\.250 /data/we"ird' "$dir/t.txt" ||
	{ echo "FAIL: text line of the failed write:"; cat "$dir/t.txt"; exit 1; }
grep -Eq 'renameat2 .* /data/a -> /data/b$' "$dir/t.txt" || { echo "FAIL: text rename"; exit 1; }
# one line per op even when a path holds a newline: header + 9
[ "$(grep -c . "$dir/t.txt")" = 10 ] || { echo "FAIL: text line count"; exit 1; }
grep -Fq '/data/we"ird\npath,' "$dir/t.txt" || { echo "FAIL: newline in a path not escaped"; exit 1; }
echo PASS
