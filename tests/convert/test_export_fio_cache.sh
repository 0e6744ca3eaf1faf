#!/bin/bash
# ioreel export fio keeps the page cache where the application had it. fio lays out its
# files (writes, an fsync, fadvise DONTNEED) before its jobs read them: exported, the layout
# writes were one job and the reads another started beside it, whose open (fio's
# invalidate=1) dropped the file before the layout wrote it; the DONTNEED was only counted
# ("left out ... fadvise64"), and the reads came from the page cache, ~40x too fast. A read
# of bytes a DONTNEED dropped after the logs read or wrote them now begins a later phase of
# jobs (stonewall, times counted from the end of the last op before it) whose jobs opening
# the dropped file drop it as they open it (invalidate=1), the others keep the cache
# (invalidate=0). Reads of bytes written before them with no drop between that took a
# device's time in the original are warned of: fio will read them from the page cache.
# Crafted as fio's run, exact; fio then runs the export.
# usage: test_export_fio_cache.sh IOREEL REPLAY_MKTRACE
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 - > "$dir/spec" <<'PY'
# pid 100, fio's main process: lays out /data/f (64 writes of 4 KiB), fsyncs and drops it
print("100 100 0 10 openat path=/data/f flags=O_RDWR|O_CREAT ret=3")
for i in range(64):
    print("100 100 %d %d pwrite64 fd=3 off=%d len=4096 ret=4096" % (1000 + 10 * i, 1005 + 10 * i, i * 4096))
print("100 100 2000 3000 fsync fd=3 ret=0")
print("100 100 3100 3400 fadvise64 fd=3 off=0 len=262144 mode=4 ret=0")
print("100 100 3500 3510 close fd=3 ret=0")
# pid 300: writes /data/g and reads it back, 12 of 14 reads at a device's pace (warned of),
# nothing dropped between
print("300 300 100 110 openat path=/data/g flags=O_RDWR|O_CREAT ret=3")
print("300 300 200 210 pwrite64 fd=3 off=0 len=57344 ret=57344")
for i in range(14):
    print("300 300 %d %d pread64 fd=3 off=%d len=4096 ret=4096" % (300 + 50 * i, 305 + (i < 12) * 45 + 50 * i, i * 4096))
# pid 400 streams /data/h, dropping each chunk once read: never re-read, no phase for it
print("400 400 100 110 openat path=/data/h flags=O_RDONLY ret=3")
for i in range(3):
    t = 200 + 300 * i
    print("400 400 %d %d pread64 fd=3 off=%d len=65536 ret=65536" % (t, t + 100, i * 65536))
    print("400 400 %d %d fadvise64 fd=3 off=%d len=65536 mode=4 ret=0" % (t + 150, t + 160, i * 65536))
# pid 200, fio's job: opens /data/f, drops it (fio's invalidate: nothing of the logs' left),
# then reads it from the device; pid 100 writes its output afterwards
print("200 200 5000 5010 openat path=/data/f flags=O_RDONLY ret=3")
print("200 200 5020 5030 fadvise64 fd=3 off=0 len=262144 mode=4 ret=0")
for i in range(20):
    print("200 200 %d %d pread64 fd=3 off=%d len=4096 ret=4096" % (10000 + 1000 * i, 10120 + 1000 * i, (i * 7 % 64) * 4096))
print("100 100 40000 40010 openat path=/data/out flags=O_WRONLY|O_CREAT ret=4")
print("100 100 40100 40110 write fd=4 off=0 len=100 ret=100")
PY
"$MKTRACE" "$dir/t.reel" < "$dir/spec" || fail "mktrace"
mkdir "$dir/x"
"$IOREEL" export fio "$dir/t.reel" -o "$dir/x/t" --root "$dir/root" 2> "$dir/err" ||
	fail "export exited $?: $(cat "$dir/err")"
cat "$dir/err"
R="$dir/root"
# the reads in a log of their own, its times from the end of the fsync (3000 us)
{ echo "fio version 3 iolog"; echo "1 $R/data/f add"; echo "1 $R/data/f open"
  for i in $(seq 0 19); do echo "$((7001 + 1000 * i)) $R/data/f read $(( (i * 7 % 64) * 4096 )) 4096"; done
} > "$dir/want.200.2"
diff -u "$dir/want.200.2" "$dir/x/t.200.2" || fail "the reads' log"
printf '%s\n' "fio version 3 iolog" "1 $R/data/out add" "1 $R/data/out open" \
	"37101 $R/data/out write 0 100" > "$dir/want.100.2"
diff -u "$dir/want.100.2" "$dir/x/t.100.2" || fail "the main process's later log"
[ "$(grep -c ' write ' "$dir/x/t.100")" = 64 ] && ! grep -q "data/out" "$dir/x/t.100" ||
	fail "the layout's log: $(cat "$dir/x/t.100")"
[ ! -e "$dir/x/t.200" ] && [ ! -e "$dir/x/t.300.2" ] && [ ! -e "$dir/x/t.400.2" ] ||
	fail "logs in the wrong phase: $(ls "$dir/x")"
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
want = ["pid100-tid100", "pid300-tid300", "pid400-tid400", "pid200-tid200-phase2",
        "pid100-tid100-phase2"]
fails = []
if replay != want:
    fails.append("jobs %r, want %r" % (replay, want))
elif not ("stonewall" in jobs["pid100-tid100"] and "stonewall" in jobs["pid200-tid200-phase2"]
          and "stonewall" not in jobs["pid300-tid300"] and "stonewall" not in jobs["pid100-tid100-phase2"]):
    fails.append("stonewall where a phase begins: %r" % jobs)
elif (jobs["pid200-tid200-phase2"].get("invalidate"), jobs["pid100-tid100-phase2"].get("invalidate"),
      jobs["pid300-tid300"].get("invalidate")) != ("1", "0", None):
    fails.append("invalidate: %r" % jobs)
if fails:
    print("FAIL: " + "; ".join(fails)); sys.exit(1)
PY
[ $? = 0 ] || exit 1
# the drops pending when the reads begin phase 2 (the layout's, the stream's) are replayed
# there; the job's own, of nothing the logs had left in the cache, is left out
for re in 'replays 4 fadvise DONTNEED \(of bytes the application had read or written\) as 1 later phase\(s\) of jobs, begun where it read dropped bytes again' \
	'left out 1 fallocate, truncate, ftruncate, fadvise64' \
	'WARNING: 12 reads of 1 file\(s\) read bytes the logs wrote before them, with nothing between that drops them from the page cache, and took 50 us or more in the original'; do
	grep -Eq "$re" "$dir/err" || fail "stderr lacks '$re'"
done
command -v fio > /dev/null || { echo "SKIP: fio missing (the export itself passed)"; exit 77; }
mkdir -p "$R/data"
( cd "$dir" && timeout 120 fio --output-format=json x/t.fio > x/fio.json 2> x/fio.err ) ||
	fail "fio on the export: $(cat "$dir/x/fio.err")"
python3 - "$dir/x/fio.json" <<'PY' || exit 1
import json, sys
jobs = {x["jobname"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
got = {n: (x["error"], x["read"]["total_ios"], x["write"]["total_ios"]) for n, x in jobs.items()
       if n.startswith("pid")}
want = {"pid100-tid100": (0, 0, 64), "pid300-tid300": (0, 14, 1), "pid400-tid400": (0, 3, 0),
        "pid200-tid200-phase2": (0, 20, 0), "pid100-tid100-phase2": (0, 0, 1)}
if got != want:
    print("FAIL: fio did %s, want %s" % (got, want)); sys.exit(1)
PY
[ $? = 0 ] || exit 1
echo PASS
