#!/bin/bash
# ioreel export fio: the iologs say exactly what the trace did (crafted trace, line by line),
# left-out ops are counted on stderr (format 1.1 ops too: sendfile becomes a read, and a write
# when it went to a file), and fio 3 itself replays the export of a real sqlite3
# run (strace-imported) under a scratch root, completing every read, write and sync.
set -u
IOREEL=$1 MKTRACE=$2
command -v fio > /dev/null || { echo "SKIP: fio missing"; exit 77; }
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

# ---- crafted trace: exact iolog lines ----
"$MKTRACE" "$dir/t.reel" || { echo "FAIL: mktrace"; exit 1; }
mkdir "$dir/c"
"$IOREEL" export fio "$dir/t.reel" -o "$dir/c/t" --root "$dir/c/root" 2> "$dir/c.err" ||
	{ echo "FAIL: export exited $?"; cat "$dir/c.err"; exit 1; }
R="$dir/c/root"
printf '%s\n' "fio version 3 iolog" "1 $R/data/db add" "1 $R/data/db open" \
	"11 $R/data/db read 0 4096" "13 $R/data/db read 4096 100" > "$dir/want.100"
printf '%s\n' "fio version 3 iolog" "1 $R/data/db add" "1 $R/data/db open" \
	"6 $R/data/db write 4096 8192" "31 $R/data/db datasync 0 0" > "$dir/want.101"
for t in 100 101; do
	diff -u "$dir/want.$t" "$dir/c/t.$t" || { echo "FAIL: iolog of thread $t"; exit 1; }
done
# pid 200 did nothing fio can say: its write failed, its path holds a newline, the rename
[ ! -e "$dir/c/t.200" ] || { echo "FAIL: an iolog for thread 200"; exit 1; }
for re in 'left out 1 metadata ops' 'left out 1 failed or zero-byte' 'left out 1 ops on paths with whitespace' \
	'wrote 2 iolog\(s\) with 3 reads/writes and 1 syncs'; do
	grep -Eq "$re" "$dir/c.err" || { echo "FAIL: stderr lacks '$re':"; cat "$dir/c.err"; exit 1; }
done
[ "$(grep -c '^read_iolog=' "$dir/c/t.fio")" = 2 ] || { echo "FAIL: job file"; cat "$dir/c/t.fio"; exit 1; }
mkdir -p "$R/data"
( cd "$dir" && timeout 120 fio --output-format=json c/t.fio > c/fio.json 2> c/fio.err ) ||
	{ echo "FAIL: fio on the crafted export"; cat "$dir/c/fio.err"; exit 1; }
python3 - "$dir/c/fio.json" <<'PY' || exit 1
import json, sys
jobs = {x["jobname"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
got = {n: (x["error"], x["read"]["total_ios"], x["read"]["io_bytes"], x["write"]["total_ios"],
           x["write"]["io_bytes"], x["sync"]["lat_ns"]["N"])
       for n, x in jobs.items() if not n.startswith("prep")}
want = {"pid100-tid100": (0, 2, 4196, 0, 0, 0), "pid100-tid101": (0, 0, 0, 1, 8192, 1)}
if got != want:
    print("FAIL: fio did %s, want %s" % (got, want)); sys.exit(1)
PY

# ---- format 1.1 ops: sendfile is a read (and a write into a file), the rest left out ----
"$MKTRACE" "$dir/v.reel" --v11 || { echo "FAIL: mktrace --v11"; exit 1; }
mkdir "$dir/v"
"$IOREEL" export fio "$dir/v.reel" -o "$dir/v/t" --root "$dir/v/root" 2> "$dir/v.err" ||
	{ echo "FAIL: export of the v11 trace exited $?"; cat "$dir/v.err"; exit 1; }
R="$dir/v/root"
printf '%s\n' "fio version 3 iolog" "1 $R/d/src add" "1 $R/d/src open" "8 $R/d/src read 0 1000" \
	"8 $R/d/dst add" "8 $R/d/dst open" "8 $R/d/dst write 4296 1000" "10 $R/d/src read 1000 500" \
	"24 $R/d/src read 0 10" > "$dir/want.300"
diff -u "$dir/want.300" "$dir/v/t.300" || { echo "FAIL: iolog of the v11 trace"; exit 1; }
# symlink, chown, chmod, utimensat, readlink; the failed copy; the copy_file_range
for re in 'left out 5 metadata ops \(.*chmod, chown, utimensat, link, symlink, readlink' \
	'left out 1 failed or zero-byte' 'left out 1 copy_file_range calls \(the file system may clone' \
	'wrote 1 iolog\(s\) with 4 reads/writes and 0 syncs'; do
	grep -Eq "$re" "$dir/v.err" || { echo "FAIL: stderr lacks '$re':"; cat "$dir/v.err"; exit 1; }
done
mkdir -p "$R/d"
( cd "$dir" && timeout 120 fio --output-format=json v/t.fio > v/fio.json 2> v/fio.err ) ||
	{ echo "FAIL: fio on the v11 export"; cat "$dir/v/fio.err"; exit 1; }
python3 - "$dir/v/fio.json" <<'PY' || exit 1
import json, sys
jobs = [x for x in json.load(open(sys.argv[1]))["jobs"] if not x["jobname"].startswith("prep")]
got = [(x["error"], x["read"]["total_ios"], x["read"]["io_bytes"], x["write"]["total_ios"],
        x["write"]["io_bytes"]) for x in jobs]
if got != [(0, 3, 1510, 1, 1000)]:
    print("FAIL: fio did %s on the v11 export" % got); sys.exit(1)
PY
[ $? = 0 ] || exit 1

# ---- a real program: sqlite3 under strace, imported, exported, replayed by fio ----
command -v strace > /dev/null && command -v sqlite3 > /dev/null || { echo "SKIP: strace/sqlite3"; exit 77; }
mkdir "$dir/app"
printf '%s\n' "PRAGMA journal_mode=DELETE;" "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);" \
	"BEGIN;" "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<1500)" \
	"INSERT INTO t(b) SELECT hex(randomblob(300)) FROM c;" "COMMIT;" \
	"UPDATE t SET b='y' WHERE a%7=0;" "SELECT sum(length(b)) FROM t;" > "$dir/s.sql"
strace -f -ttt -T -y -o "$dir/sq.strace" sqlite3 "$dir/app/db.sqlite" < "$dir/s.sql" > /dev/null ||
	{ echo "FAIL: strace sqlite3"; exit 1; }
"$IOREEL" import strace "$dir/sq.strace" -o "$dir/sq.reel" 2> /dev/null || { echo "FAIL: import"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/sq.reel" > "$dir/sq.jsonl" || { echo "FAIL: dump"; exit 1; }
mkdir "$dir/x"
"$IOREEL" export fio "$dir/sq.reel" -o "$dir/x/sq" --root "$dir/x/root" 2> "$dir/x.err" ||
	{ echo "FAIL: export"; cat "$dir/x.err"; exit 1; }
grep '^;   mkdir -p ' "$dir/x/sq.fio" | sed 's/^;   mkdir -p //' | while read -r d; do mkdir -p "$d"; done
( cd / && timeout 150 fio --output-format=json "$dir/x/sq.fio" > "$dir/x/fio.json" 2> "$dir/x/fio.err" ) ||
	{ echo "FAIL: fio exited $?"; cat "$dir/x/fio.err"; exit 1; }
python3 - "$dir" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
ops = [json.loads(l) for l in open(d + "/sq.jsonl")]
reads = [o for o in ops if o["op"] in ("read", "pread64", "readv", "preadv") and o["ret"] > 0]
writes = [o for o in ops if o["op"] in ("write", "pwrite64", "writev", "pwritev") and o["ret"] > 0]
syncs = [o for o in ops if o["op"] in ("fsync", "fdatasync") and o["ret"] == 0 and o["fd_kind"] == "reg"]
mmaps = [o for o in ops if o["op"] == "mmap"]
j = json.load(open(d + "/x/fio.json"))
jobs = [x for x in j["jobs"] if not x["jobname"].startswith("prep")]
fail = 0
if len(jobs) != 1:
    print("FAIL: %d replay jobs for single-threaded sqlite3" % len(jobs)); sys.exit(1)
job = jobs[0]
got = dict(error=job["error"], reads=job["read"]["total_ios"], writes=job["write"]["total_ios"],
           syncs=job["sync"]["lat_ns"]["N"], read_bytes=job["read"]["io_bytes"],
           write_bytes=job["write"]["io_bytes"])
want = dict(error=0, reads=len(reads), writes=len(writes), syncs=len(syncs),
            read_bytes=sum(o["ret"] for o in reads), write_bytes=sum(o["ret"] for o in writes))
if got != want:
    print("FAIL: fio did %s, the trace has %s" % (got, want)); fail = 1
if want["writes"] < 100 or want["syncs"] < 2:
    print("FAIL: sqlite3 did too little to test anything: %s" % want); fail = 1
err = open(d + "/x.err").read()
if mmaps and "left out %d mmaps" % len(mmaps) not in err:
    print("FAIL: mmaps not reported as left out:\n" + err); fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1
# nothing outside the root was written: the database the replay wrote is the root's copy
[ -s "$dir/x/root$dir/app/db.sqlite" ] || { echo "FAIL: no replayed db under the root"; exit 1; }
echo PASS
