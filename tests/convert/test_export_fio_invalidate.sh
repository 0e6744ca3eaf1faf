#!/bin/bash
# ioreel export fio drops from the page cache, in a later phase of jobs, only the files the
# application dropped (fadvise DONTNEED), not the others its threads read there. fio's
# invalidate=1 applies to every file a job opens: a thread that read both a dropped file and
# one the application kept cached was one job with invalidate=1, which dropped both, and its
# reads of the kept file came from the device. Its lines on the dropped files now go to a
# job of their own with invalidate=1 (-dropped, log IOLOG.TID.PHASE.dropped), the others to
# one with invalidate=0, side by side (counted on stderr). Here pid 100 writes /data/f and
# /data/k, drops /data/f; pid 200 then reads both in turn. fio accepts the job file, runs it,
# and (under strace) drops /data/k at no open after the one that drops /data/f last.
# usage: test_export_fio_invalidate.sh IOREEL REPLAY_MKTRACE
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 - > "$dir/spec" <<'PY'
# pid 100 lays out /data/f (16 writes of 4 KiB), fsyncs and drops it; writes /data/k and
# keeps it
print("100 100 0 10 openat path=/data/f flags=O_RDWR|O_CREAT ret=3")
print("100 100 20 30 openat path=/data/k flags=O_RDWR|O_CREAT ret=4")
for i in range(16):
    print("100 100 %d %d pwrite64 fd=3 off=%d len=4096 ret=4096" % (1000 + 10 * i, 1005 + 10 * i, i * 4096))
    print("100 100 %d %d pwrite64 fd=4 off=%d len=4096 ret=4096" % (2000 + 10 * i, 2005 + 10 * i, i * 4096))
print("100 100 3000 3500 fsync fd=3 ret=0")
print("100 100 3600 3700 fadvise64 fd=3 off=0 len=65536 mode=4 ret=0")
# pid 200 reads /data/f from the device (120 us) and /data/k from the cache (5 us) in turn
print("200 200 5000 5010 openat path=/data/f flags=O_RDONLY ret=3")
print("200 200 5020 5030 openat path=/data/k flags=O_RDONLY ret=4")
for i in range(10):
    print("200 200 %d %d pread64 fd=3 off=%d len=4096 ret=4096" % (10000 + 1000 * i, 10120 + 1000 * i, i * 4096))
    print("200 200 %d %d pread64 fd=4 off=%d len=4096 ret=4096" % (10500 + 1000 * i, 10505 + 1000 * i, i * 4096))
PY
"$MKTRACE" "$dir/t.reel" < "$dir/spec" || fail "mktrace"
mkdir "$dir/x"
"$IOREEL" export fio "$dir/t.reel" -o "$dir/x/t" --root "$dir/root" 2> "$dir/err" ||
	fail "export exited $?: $(cat "$dir/err")"
R="$dir/root"
# the dropped file's reads in a log of their own, the kept file's in the thread's
[ "$(grep -c " $R/data/f read " "$dir/x/t.200.2.dropped")" = 10 ] &&
	! grep -q "$R/data/k" "$dir/x/t.200.2.dropped" || fail "the dropped file's log: $(ls "$dir/x")"
[ "$(grep -c " $R/data/k read " "$dir/x/t.200.2")" = 10 ] &&
	! grep -q "$R/data/f" "$dir/x/t.200.2" || fail "the kept file's log: $(ls "$dir/x")"
python3 - "$dir/x/t.fio" <<'PY' || { cat "$dir/x/t.fio"; exit 1; }
import sys
jobs, order, cur = {}, [], None
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("["):
        cur = line[1:-1]
        order.append(cur)
        jobs[cur] = {}
    elif cur and line and not line.startswith(";"):
        k, _, v = line.partition("=")
        jobs[cur][k] = v
replay = [j for j in order if j.startswith("pid")]
want = ["pid100-tid100", "pid200-tid200-phase2-dropped", "pid200-tid200-phase2"]
if replay != want:
    print("FAIL: jobs %r, want %r" % (replay, want)); sys.exit(1)
got = [(jobs[j].get("invalidate"), "stonewall" in jobs[j], jobs[j]["read_iolog"].split("/")[-1])
       for j in want]
if got != [(None, True, "t.100"), ("1", True, "t.200.2.dropped"), ("0", False, "t.200.2")]:
    print("FAIL: (invalidate, stonewall, log) of %r: %r" % (want, got)); sys.exit(1)
PY
[ $? = 0 ] || exit 1
grep -Eq "cannot carry 10 reads/writes/syncs of files dropped from the page cache run by a job beside their thread's others" \
	"$dir/err" || fail "stderr lacks the split: $(cat "$dir/err")"

command -v fio > /dev/null || { echo "SKIP: fio missing (the export itself passed)"; exit 77; }
fio --parse-only "$dir/x/t.fio" > "$dir/x/parse.out" 2>&1 ||
	fail "fio --parse-only rejects the job file: $(cat "$dir/x/parse.out")"
mkdir -p "$R/data"
( cd "$dir" && timeout 120 fio --output-format=json x/t.fio > x/fio.json 2> x/fio.err ) ||
	fail "fio on the export: $(cat "$dir/x/fio.err")"
python3 - "$dir/x/fio.json" <<'PY' || exit 1
import json, sys
jobs = {x["jobname"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
got = {n: (x["error"], x["read"]["total_ios"], x["write"]["total_ios"]) for n, x in jobs.items()
       if n.startswith("pid")}
want = {"pid100-tid100": (0, 0, 32), "pid200-tid200-phase2-dropped": (0, 10, 0),
        "pid200-tid200-phase2": (0, 10, 0)}
if got != want:
    print("FAIL: fio did %s, want %s" % (got, want)); sys.exit(1)
PY
[ $? = 0 ] || exit 1
command -v strace > /dev/null || { echo "SKIP (which files fio drops): strace missing"; echo PASS; exit 0; }
( cd "$dir" && timeout 120 strace -f -qq -y -e trace=fadvise64 -o x/fadvise.txt \
	fio --output-format=json x/t.fio > /dev/null 2>&1 ) || fail "fio under strace"
last_f=$(grep -n "data/f>.*POSIX_FADV_DONTNEED" "$dir/x/fadvise.txt" | tail -1 | cut -d: -f1)
last_k=$(grep -n "data/k>.*POSIX_FADV_DONTNEED" "$dir/x/fadvise.txt" | tail -1 | cut -d: -f1)
[ -n "$last_f" ] || fail "fio never dropped /data/f: $(cat "$dir/x/fadvise.txt")"
[ -z "$last_k" ] || [ "$last_k" -lt "$last_f" ] ||
	fail "fio dropped /data/k in the later phase: $(grep DONTNEED "$dir/x/fadvise.txt")"
echo PASS
