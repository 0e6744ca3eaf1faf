#!/bin/bash
# ioreel dump on a trace written with the writer (mktrace.c): every field of every op comes
# out with its exact value in JSON lines and CSV (paths with quotes, newlines, commas and
# non-ASCII bytes stay valid JSON/CSV), and the text form shows errno names and latencies.
# The op types of format 1.1 (mktrace --v11) by name, every field, and in text a copy's
# destination, a symlink's content and the attributes set.
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
weird = "/data/we\"ird\npath,\u00e9"
weird_json = weird  # bytes c3 a9, UTF-8, read as themselves (not U+00C3 U+00A9)
keys = ["op", "pid", "tid", "start_ns", "end_ns", "path", "fd", "offset", "len", "ret",
        "sched_ns", "fd_kind", "fd2", "path2", "flags", "mode", "subop", "aux", "ctx", "err",
        "wait_ns"]
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
         fd=3, sched_ns=29000, wait_ns=700),
]
defaults = dict(offset=0, len=0, ret=0, sched_ns=0, fd_kind="reg", fd2=-1, path2=None,
                flags=0, mode=0, subop=0, aux=0, ctx=0, err=None, wait_ns=0)
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
            v = v.encode("utf-8").decode("latin-1")  # csv holds the bytes, read as latin-1
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

# ---- the op types of format 1.1: names, every field in JSON lines, what text shows ----
"$MKTRACE" "$dir/v.reel" --v11 || { echo "FAIL: mktrace --v11"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/v.reel" > "$dir/v.jsonl" || { echo "FAIL: dump jsonl"; exit 1; }
"$IOREEL" dump --format csv "$dir/v.reel" > "$dir/v.csv" || { echo "FAIL: dump csv"; exit 1; }
"$IOREEL" dump "$dir/v.reel" > "$dir/v.txt" || { echo "FAIL: dump text"; exit 1; }
python3 - "$dir" <<'PY' || exit 1
import csv, json, sys
d = sys.argv[1]
want = [
    dict(op="openat", fd=-100, path="/d/src", ret=3),
    dict(op="openat", fd=-100, path="/d/dst", ret=4, flags=0o101, mode=0o600),
    dict(op="copy_file_range", fd=3, fd2=4, path="/d/src", path2="/d/dst", offset=100,
         aux=200, len=4096, ret=4096),
    dict(op="sendfile", fd=3, fd2=4, path="/d/src", path2="/d/dst", offset=0, aux=4296,
         len=1000, ret=1000, mode=1),
    dict(op="sendfile", fd=3, fd2=7, path="/d/src", offset=1000, len=500, ret=500, mode=6),
    dict(op="copy_file_range", fd=3, fd2=4, path="/d/src", path2="/d/dst", len=10, ret=-18,
         err="EXDEV"),
    dict(op="symlink", fd=-1, path="/d/lnk", path2="../rel/target"),
    dict(op="chown", fd=-1, path="/d/src", aux=1, ctx=4294967295),
    dict(op="chmod", fd=-1, path="/d/src", mode=0o640),
    dict(op="utimensat", fd=4, path="/d/dst"),
    dict(op="readlink", fd=-1, path="/d/lnk", path2="../rel/target", len=256, ret=13),
    dict(op="pread64", fd=3, path="/d/src", len=10, ret=10),
]
defaults = dict(pid=300, tid=300, offset=0, len=0, ret=0, sched_ns=0, fd_kind="reg", fd2=-1,
                path2=None, flags=0, mode=0, subop=0, aux=0, ctx=0, err=None)
fail = 0
ops = [json.loads(l) for l in open(d + "/v.jsonl")]
rows = list(csv.DictReader(open(d + "/v.csv", newline="")))
if len(ops) != len(want) or len(rows) != len(want):
    print("FAIL: %d jsonl lines, %d csv rows, want %d" % (len(ops), len(rows), len(want))); sys.exit(1)
for i, (o, r, w) in enumerate(zip(ops, rows, want)):
    full = dict(defaults); full.update(w)
    for k, v in full.items():
        if o[k] != v:
            print("FAIL: v11 jsonl line %d %s = %r, want %r" % (i, k, o[k], v)); fail = 1
        if r[k] != ("" if v is None else str(v)):
            print("FAIL: v11 csv row %d %s = %r, want %r" % (i, k, r[k], v)); fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1
# text: a copy's destination and where it wrote, a symlink's content as stored and as read
# back, attributes
for re in 'copy_file_range +300/300 +3 +100 +4096 +4096 .* /d/src -> /d/dst at 200$' \
	'sendfile +300/300 +3 +0 +1000 +1000 .* /d/src -> /d/dst at 4296$' \
	'sendfile +300/300 +3 +1000 +500 +500 .* /d/src -> fd 7 \(sock\)$' \
	'copy_file_range .* EXDEV .* /d/src -> /d/dst at 0$' \
	'symlink .* /d/lnk -> \.\./rel/target$' 'chown .* /d/src uid=1 gid=-1$' \
	'chmod .* /d/src mode=0640$' 'utimensat +300/300 +4 .* /d/dst$' \
	'readlink +300/300 +-1 +0 +256 +13 .* /d/lnk -> \.\./rel/target$'; do
	grep -Eq "$re" "$dir/v.txt" || { echo "FAIL: v11 text has no line $re:"; cat "$dir/v.txt"; exit 1; }
done
echo PASS
