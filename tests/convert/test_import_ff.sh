#!/bin/bash
# ioreel import strace on a REAL strace -ff run (one log per process, PREFIX.PID, no pid
# column): tar creating and extracting an archive under sh, four processes. The facts checked
# come from each process's log (count_strace.py, a separate regex reader) and from the files:
# every op lands in the process whose log it came from, with the same counts, and read/write
# positions are tracked across the merged logs. Bad input: a log not named PREFIX.PID, a log
# without -ttt time stamps.
set -u
IOREEL=$1 SRC=$3
command -v strace > /dev/null && command -v tar > /dev/null ||
	{ echo "SKIP: strace or tar missing"; exit 77; }
dir=$(mktemp -d /var/tmp/ioreel-convert-ff.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

mkdir -p "$dir/src/sub" "$dir/logs"
for i in 1 2 3 4; do head -c $((i * 23456 + 77)) /dev/urandom > "$dir/src/f$i"; done
echo small > "$dir/src/sub/g"
( cd "$dir" && strace -ff -ttt -T -y -o "$dir/logs/tar" sh -c \
	'tar -cf a.tar src && mkdir out && tar -xf a.tar -C out' ) || { echo "FAIL: strace -ff tar"; exit 1; }
cmp "$dir/src/f4" "$dir/out/src/f4" || { echo "FAIL: tar did not extract"; exit 1; }
n=$(ls "$dir/logs" | wc -l)
[ "$n" -ge 4 ] || { echo "FAIL: strace -ff wrote $n logs, expected one per process (>= 4)"; exit 1; }
"$IOREEL" import strace "$dir"/logs/tar.* -o "$dir/ff.reel" 2> "$dir/ff.err" ||
	{ echo "FAIL: import of the -ff logs"; cat "$dir/ff.err"; exit 1; }
! grep -q 'could not be parsed' "$dir/ff.err" || { echo "FAIL: bad lines:"; cat "$dir/ff.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/ff.reel" > "$dir/ff.jsonl" || { echo "FAIL: dump"; exit 1; }
"$IOREEL" info --json "$dir/ff.reel" > "$dir/ff.info" || { echo "FAIL: info"; exit 1; }
for f in "$dir"/logs/tar.*; do
	python3 "$SRC/count_strace.py" "$f" "$dir/" > "$f.truth" || exit 1
done

PYTHONPATH=$SRC PYTHONDONTWRITEBYTECODE=1 python3 - "$dir" <<'PY' || exit 1
import collections, glob, json, sys
import positions
d = sys.argv[1]
ops = [json.loads(l) for l in open(d + "/ff.jsonl")]
names = ("read", "write", "pread64", "pwrite64", "fsync", "fdatasync", "close", "lseek")
fail = 0
logs = sorted(f for f in glob.glob(d + "/logs/tar.*") if not f.endswith(".truth"))
for log in logs:
    pid = int(log.rsplit(".", 1)[1])
    truth = collections.Counter(json.load(open(log + ".truth"))["counts"])
    got = collections.Counter("%s %s" % (o["op"], o["path"]) for o in ops
                              if o["pid"] == pid and o["path"] and
                              o["path"].startswith(d + "/") and o["op"] in names)
    if got != truth:
        print("FAIL: process %d: ops differ from its log:\n  ioreel %s\n  strace %s" %
              (pid, dict(got), dict(truth)))
        fail = 1
pids = {o["pid"] for o in ops}
if not pids <= {int(l.rsplit(".", 1)[1]) for l in logs}:
    print("FAIL: ops of processes without a log: %s" % pids); fail = 1
for err in positions.tar_errors(ops, d):
    print("FAIL: " + err)
    fail = 1
info = json.load(open(d + "/ff.info"))
if info["processes"] != len(logs) or info["ops"] != len(ops):
    print("FAIL: info says %d processes, %d ops; %d logs, %d ops" %
          (info["processes"], info["ops"], len(logs), len(ops))); fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1

# the same logs given in another order make the same trace
"$IOREEL" import strace $(ls "$dir"/logs/tar.* | grep -v truth | sort -r) -o "$dir/ff2.reel" 2> /dev/null ||
	{ echo "FAIL: import in reverse order"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/ff2.reel" | cmp -s - "$dir/ff.jsonl" ||
	{ echo "FAIL: the trace depends on the order the logs were given in"; exit 1; }

# bad input: one clear line, exit 1, no trace claimed
cp "$(ls "$dir"/logs/tar.* | grep -v truth | head -1)" "$dir/noname"
"$IOREEL" import strace "$dir/noname" "$dir"/logs/tar.*[0-9] -o "$dir/bad.reel" 2> "$dir/bad.err"
rc=$?
[ $rc = 1 ] && grep -q "noname: with several logs, each must be a strace -ff file named PREFIX.PID" \
	"$dir/bad.err" || { echo "FAIL: unnamed log: exit $rc:"; cat "$dir/bad.err"; exit 1; }
( cd "$dir" && strace -ff -T -y -o "$dir/nottt" sh -c 'cat src/f1 > /dev/null' ) ||
	{ echo "FAIL: strace without -ttt"; exit 1; }
"$IOREEL" import strace "$dir"/nottt.* -o "$dir/bad.reel" 2> "$dir/bad.err"
rc=$?
[ $rc = 1 ] && grep -q "line 1 has no time stamp" "$dir/bad.err" ||
	{ echo "FAIL: log without -ttt: exit $rc:"; cat "$dir/bad.err"; exit 1; }
[ "$(wc -l < "$dir/bad.err")" = 1 ] || { echo "FAIL: more than one line of error:"; cat "$dir/bad.err"; exit 1; }
echo PASS
