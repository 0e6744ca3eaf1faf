#!/bin/bash
# ioreel import strace on REAL strace -f -ttt -T -y runs of programs we did not write:
# sqlite3 running a script on a scratch database, and tar creating and extracting an
# archive. The facts checked come from the strace log itself (count_strace.py, a separate
# regex reader) and from the files on disk.
set -u
IOREEL=$1 SRC=$3
command -v strace > /dev/null && command -v sqlite3 > /dev/null && command -v tar > /dev/null ||
	{ echo "SKIP: strace, sqlite3 or tar missing"; exit 77; }
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

# ---- sqlite3 ----
cat > "$dir/s.sql" <<'SQL'
PRAGMA journal_mode=DELETE;
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
BEGIN;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<2000)
INSERT INTO t(b) SELECT hex(randomblob(200)) FROM c;
COMMIT;
UPDATE t SET b='x' WHERE a%10=0;
SELECT count(*) FROM t;
SQL
strace -f -ttt -T -y -o "$dir/sq.strace" sqlite3 "$dir/db.sqlite" < "$dir/s.sql" > "$dir/sq.out" ||
	{ echo "FAIL: strace sqlite3"; exit 1; }
grep -qx 2000 "$dir/sq.out" || { echo "FAIL: sqlite3 did not run the script"; exit 1; }
"$IOREEL" import strace "$dir/sq.strace" -o "$dir/sq.reel" 2> "$dir/sq.err" ||
	{ echo "FAIL: import sqlite3 log"; cat "$dir/sq.err"; exit 1; }
! grep -q 'could not be parsed' "$dir/sq.err" || { echo "FAIL: bad lines:"; cat "$dir/sq.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/sq.reel" > "$dir/sq.jsonl" || { echo "FAIL: dump"; exit 1; }
"$IOREEL" info --json "$dir/sq.reel" > "$dir/sq.info" || { echo "FAIL: info"; exit 1; }
python3 "$SRC/count_strace.py" "$dir/sq.strace" "$dir/" > "$dir/sq.truth" || exit 1

python3 - "$dir" <<'PY' || exit 1
import collections, json, sys
d = sys.argv[1]
db, jr = d + "/db.sqlite", d + "/db.sqlite-journal"
ops = [json.loads(l) for l in open(d + "/sq.jsonl")]
truth = json.load(open(d + "/sq.truth"))
fail = 0
got = collections.Counter("%s %s" % (o["op"], o["path"]) for o in ops
                          if o["path"] and o["path"].startswith(d + "/") and
                          o["op"] in ("read", "write", "pread64", "pwrite64", "fsync",
                                      "fdatasync", "close", "lseek"))
if got != collections.Counter(truth["counts"]):
    print("FAIL: op counts differ from the log:\n  ioreel %s\n  strace %s" % (dict(got), truth["counts"]))
    fail = 1
paths = {o["path"] for o in ops}
for p in (db, jr):
    if p not in paths:
        print("FAIL: %s never appears" % p); fail = 1
kinds = collections.Counter((o["op"], o["path"]) for o in ops)
for need in [("pwrite64", db), ("pread64", db), ("pwrite64", jr), ("unlink", jr)]:
    if not kinds[need]:
        print("FAIL: no %s on %s" % need); fail = 1
for p in (db, jr):
    if not (kinds[("fsync", p)] + kinds[("fdatasync", p)]):
        print("FAIL: no fsync/fdatasync on %s" % p); fail = 1
# every pwrite64/pread64 keeps its offset, length and result, in order
for key, seq in truth["positioned"].items():
    name, path = key.split(" ", 1)
    mine = [[o["offset"], o["len"], o["ret"]] for o in ops if o["op"] == name and o["path"] == path]
    if mine != seq:
        print("FAIL: %s: offsets/lengths differ from the log" % key); fail = 1
if any(o["pid"] != ops[0]["pid"] or o["tid"] != o["pid"] for o in ops):
    print("FAIL: sqlite3 is one single-threaded process"); fail = 1
info = json.load(open(d + "/sq.info"))
if info["ops"] != len(ops) or info["processes"] != 1 or info["threads"] != 1:
    print("FAIL: info %s" % {k: info[k] for k in ("ops", "processes", "threads")}); fail = 1
written = sum(o["ret"] for o in ops if o["op"] in ("write", "pwrite64") and o["ret"] > 0)
if info["bytes_written"] != written or written < 2000 * 200:
    print("FAIL: bytes_written %d, ops say %d" % (info["bytes_written"], written)); fail = 1
if not info["meta"].get("command", "").startswith("sqlite3 " + d):
    print("FAIL: command %r" % info["meta"].get("command")); fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1

# ---- tar: create, then extract elsewhere (read/write with tracked positions) ----
mkdir -p "$dir/src/sub"
for i in 1 2 3 4; do head -c $((i * 23456 + 77)) /dev/urandom > "$dir/src/f$i"; done
echo small > "$dir/src/sub/g"
( cd "$dir" && strace -f -ttt -T -y -o "$dir/tar.strace" sh -c \
	'tar -cf a.tar src && mkdir out && tar -xf a.tar -C out' ) || { echo "FAIL: strace tar"; exit 1; }
cmp "$dir/src/f4" "$dir/out/src/f4" || { echo "FAIL: tar did not extract"; exit 1; }
"$IOREEL" import strace "$dir/tar.strace" -o "$dir/tar.reel" 2> "$dir/tar.err" ||
	{ echo "FAIL: import tar log"; cat "$dir/tar.err"; exit 1; }
! grep -q 'could not be parsed' "$dir/tar.err" || { echo "FAIL: bad lines:"; cat "$dir/tar.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/tar.reel" > "$dir/tar.jsonl" || { echo "FAIL: dump"; exit 1; }
"$IOREEL" info --json "$dir/tar.reel" > "$dir/tar.info" || { echo "FAIL: info"; exit 1; }
python3 "$SRC/count_strace.py" "$dir/tar.strace" "$dir/" > "$dir/tar.truth" || exit 1

PYTHONPATH=$SRC PYTHONDONTWRITEBYTECODE=1 python3 - "$dir" <<'PY' || exit 1
import collections, json, os, sys
import positions
d = sys.argv[1]
ops = [json.loads(l) for l in open(d + "/tar.jsonl")]
truth = json.load(open(d + "/tar.truth"))
fail = 0
got = collections.Counter("%s %s" % (o["op"], o["path"]) for o in ops
                          if o["path"] and o["path"].startswith(d + "/") and
                          o["op"] in ("read", "write", "pread64", "pwrite64", "fsync",
                                      "fdatasync", "close", "lseek"))
if got != collections.Counter(truth["counts"]):
    print("FAIL: op counts differ from the log:\n  ioreel %s\n  strace %s" % (dict(got), truth["counts"]))
    fail = 1
# the extracted files' relative names are resolved by dirfd/cwd
for err in positions.tar_errors(ops, d):
    print("FAIL: " + err)
    fail = 1
mk = [o for o in ops if o["op"] in ("mkdir", "mkdirat") and o["ret"] == 0]
if {o["path"] for o in mk} < {d + "/out", d + "/out/src", d + "/out/src/sub"}:
    print("FAIL: mkdirs %s" % [o["path"] for o in mk]); fail = 1
info = json.load(open(d + "/tar.info"))
if info["processes"] < 4:  # sh, tar, mkdir, tar
    print("FAIL: %d processes" % info["processes"]); fail = 1
if int(info["meta"].get("nonfile_ops", "-1")) < 0:
    print("FAIL: no nonfile_ops meta"); fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1
# ---- libaio: fio's libaio engine, io_submit/io_getevents decoded per iocb/event ----
if command -v fio > /dev/null; then
	strace -f -ttt -T -y -o "$dir/aio.strace" fio --name=aio --filename="$dir/aio.dat" \
		--size=256k --bs=4k --rw=randrw --ioengine=libaio --iodepth=8 --direct=1 \
		--output=/dev/null || { echo "FAIL: strace fio"; exit 1; }
	"$IOREEL" import strace "$dir/aio.strace" -o "$dir/aio.reel" 2> "$dir/aio.err" ||
		{ echo "FAIL: import fio log"; cat "$dir/aio.err"; exit 1; }
	! grep -q 'could not be parsed' "$dir/aio.err" || { echo "FAIL: bad lines:"; cat "$dir/aio.err"; exit 1; }
	"$IOREEL" dump --format jsonl "$dir/aio.reel" > "$dir/aio.jsonl" || { echo "FAIL: dump"; exit 1; }
	python3 "$SRC/count_strace.py" "$dir/aio.strace" "$dir/" > "$dir/aio.truth" || exit 1
	python3 - "$dir" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
truth = json.load(open(d + "/aio.truth"))
subs = [tuple(x) for x in truth["aio_submits"]]
res = truth["aio_res"]
ops = [json.loads(l) for l in open(d + "/aio.jsonl")]
mine_subs = [(o["offset"], o["len"]) for o in ops if o["op"] == "aio_submit"]
mine_res = [o["ret"] for o in ops if o["op"] == "aio_complete"]
fail = 0
if mine_subs != subs or len(subs) < 64:
    print("FAIL: %d aio_submit ops, the log has %d iocbs (or they differ)" % (len(mine_subs), len(subs))); fail = 1
if mine_res != res:
    print("FAIL: %d aio_complete ops, the log has %d events" % (len(mine_res), len(res))); fail = 1
if any(o["path"] != d + "/aio.dat" for o in ops if o["op"].startswith("aio_")):
    print("FAIL: async ops without their file"); fail = 1
sys.exit(fail)
PY
	[ $? = 0 ] || exit 1
	# threads: fio --thread runs its jobs as pthreads (clone3 with CLONE_THREAD)
	strace -f -ttt -T -y -o "$dir/thr.strace" fio --name=thr --thread --numjobs=3 \
		--filename="$dir/thr.dat" --size=64k --bs=4k --rw=randread --ioengine=psync \
		--output=/dev/null || { echo "FAIL: strace fio --thread"; exit 1; }
	"$IOREEL" import strace "$dir/thr.strace" -o "$dir/thr.reel" 2> /dev/null || { echo "FAIL: import"; exit 1; }
	"$IOREEL" dump --format jsonl "$dir/thr.reel" > "$dir/thr.jsonl" || { echo "FAIL: dump"; exit 1; }
	python3 "$SRC/count_strace.py" "$dir/thr.strace" "$dir/" > "$dir/thr.truth" || exit 1
	python3 - "$dir" <<'PY' || exit 1
import collections, json, sys
d = sys.argv[1]
f = d + "/thr.dat"
truth = json.load(open(d + "/thr.truth"))["counts"]
ops = [json.loads(l) for l in open(d + "/thr.jsonl")]
reads = [o for o in ops if o["op"] == "pread64" and o["path"] == f]
pids = {o["pid"] for o in reads}
tids = collections.Counter(o["tid"] for o in reads)
fail = 0
if len(reads) != truth.get("pread64 " + f) or len(reads) < 48:
    print("FAIL: %d pread64 ops, the log has %s" % (len(reads), truth.get("pread64 " + f))); fail = 1
if len(pids) != 1 or len(tids) != 3 or pids & set(tids):
    print("FAIL: 3 threads of one process expected: pids %s tids %s" % (pids, dict(tids))); fail = 1
sys.exit(fail)
PY
	[ $? = 0 ] || exit 1
fi
echo PASS
