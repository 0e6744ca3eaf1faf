#!/bin/bash
# ioreel export fio submits a job's async requests as many at a time as the application's
# io_submit / io_uring_enter calls most often took (iodepth_batch_submit), and lets fio reap
# whatever has completed, up to the job's depth (iodepth_batch_complete_max), so that a full
# queue refills by batches too. The records of one call are alike in thread, type, context
# and start (FORMAT.md). fio submits each request on its own by default: a recording of
# fio's libaio job with iodepth_batch_submit=8, exported, went to the device one request per
# io_submit. Here pid 100's libaio reads went 8 per io_submit (but one call of 3: counted on
# stderr), pid 300's io_uring reads 2 per io_uring_enter, and pid 200's io_uring writes one
# per call (no batch option). fio accepts the job file, and submits pid 100's by 8.
# usage: test_export_fio_batch.sh IOREEL REPLAY_MKTRACE
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 - > "$dir/spec" <<'PY'
# pid 100: libaio reads of 4 KiB, 41 io_submits 200 us apart, of 8 requests but the 21st
# (of 3), each request reaped 50 us after its call: 8 in flight at most
print("100 100 0 10 openat path=/data/f flags=O_RDONLY ret=3")
n = 0
for call in range(41):
    sub = 1000 + call * 200
    reqs = []
    for j in range(3 if call == 20 else 8):
        reqs.append("fd=3 ctx=7 aux=%d subop=0 off=%d len=4096" % (n, (n % 256) * 4096))
        n += 1
    for a in reqs:
        print("100 100 %d %d aio_submit %s ret=%d" % (sub, sub, a, len(reqs)))
    for a in reqs:
        print("100 100 %d %d aio_complete %s ret=4096" % (sub, sub + 50, a))
# pid 200: io_uring writes of 8 KiB, one per io_uring_enter, 3 in flight at most
print("200 200 0 10 openat path=/data/g flags=O_RDWR ret=4")
for i in range(12):
    sub = 1000 + i * 20
    a = "fd=4 ctx=9 aux=%d subop=23 off=%d len=8192" % (1000 + i, i * 8192)
    print("200 200 %d %d uring_submit %s ret=1" % (sub, sub, a))
    print("200 200 %d %d uring_complete %s ret=8192" % (sub, sub + 55, a))
# pid 300: io_uring reads, 2 per io_uring_enter every 30 us, each done 50 us later: 4 in
# flight at most
print("300 300 0 10 openat path=/data/h flags=O_RDONLY ret=5")
for call in range(10):
    sub = 1000 + call * 30
    reqs = ["fd=5 ctx=11 aux=%d subop=22 off=%d len=4096" % (2 * call + j, (2 * call + j) * 4096)
            for j in range(2)]
    for a in reqs:
        print("300 300 %d %d uring_submit %s ret=2" % (sub, sub, a))
    for a in reqs:
        print("300 300 %d %d uring_complete %s ret=4096" % (sub, sub + 50, a))
PY
"$MKTRACE" "$dir/t.reel" < "$dir/spec" || fail "mktrace"
mkdir "$dir/x"
"$IOREEL" export fio "$dir/t.reel" -o "$dir/x/t" --root "$dir/root" 2> "$dir/err" ||
	fail "export exited $?: $(cat "$dir/err")"
python3 - "$dir/x/t.fio" <<'PY' || { cat "$dir/x/t.fio"; exit 1; }
import sys
jobs, cur = {}, None
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("["):
        cur = jobs.setdefault(line[1:-1], {})
    elif cur is not None and "=" in line and not line.startswith(";"):
        k, v = line.split("=", 1)
        cur[k] = v
keys = ("ioengine", "iodepth", "iodepth_batch_submit", "iodepth_batch_complete_max",
        "iodepth_batch_complete_min")
want = {
    "pid100-tid100": ("libaio", "8", "8", "8", None),
    "pid200-tid200": ("io_uring", "3", None, None, None),
    "pid300-tid300": ("io_uring", "4", "2", "4", None),
}
got = {j: tuple(jobs.get(j, {}).get(k) for k in keys) for j in want}
if got != want:
    print("FAIL: job options %s: %s\n  want %s" % (keys, got, want)); sys.exit(1)
PY
[ $? = 0 ] || exit 1
grep -q 'cannot carry 3 async requests submitted in calls of another size than their job.s iodepth_batch_submit' \
	"$dir/err" || fail "stderr lacks the call of 3: $(cat "$dir/err")"

command -v fio > /dev/null || { echo "SKIP: fio missing (the export itself passed)"; exit 77; }
fio --parse-only "$dir/x/t.fio" > "$dir/x/parse.out" 2>&1 ||
	fail "fio --parse-only rejects the job file: $(cat "$dir/x/parse.out")"
mkdir -p "$dir/root/data"
( cd "$dir" && timeout 120 fio --output-format=json x/t.fio > x/fio.json 2> x/fio.err ) ||
	fail "fio on the export: $(cat "$dir/x/fio.err")"
python3 - "$dir/x/fio.json" <<'PY' || exit 1
import json, sys
jobs = {x["jobname"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
fail = 0
for name, ios in {"pid100-tid100": 323, "pid200-tid200": 12, "pid300-tid300": 20}.items():
    j = jobs[name]
    n = j["read"]["total_ios"] + j["write"]["total_ios"]
    if j["error"] or n != ios:
        print("FAIL: fio's %s: error %d, %d ios, want %d" % (name, j["error"], n, ios)); fail = 1
# fio's histogram of requests per submission: "8" is 5 to 8, "4" 1 to 4
sub = jobs["pid100-tid100"]["iodepth_submit"]
if sub.get("8", 0) < 75:
    print("FAIL: fio submitted pid 100's requests by fewer than 5 in most calls: %s" % sub)
    fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1
echo PASS
