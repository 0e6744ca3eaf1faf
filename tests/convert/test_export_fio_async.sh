#!/bin/bash
# ioreel export fio carries per job what fio can say per job: direct=1 when most of the
# thread's reads/writes were on O_DIRECT fds (opened so, a dup of one, or open before the
# capture: capture.fd_flags), and for a thread whose I/O was libaio or io_uring requests
# ioengine=libaio / io_uring with iodepth = the most of its requests in flight at once
# (submission to reap, whichever thread reaped). It used to write every job as psync, no
# direct, no iodepth: a recording of fio's libaio direct=1 iodepth=8 job replayed from the
# page cache one request at a time. What a job cannot carry is counted on stderr. When fio
# is here, it replays the export at that depth.
# usage: test_export_fio_async.sh IOREEL REPLAY_MKTRACE
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 - > "$dir/spec" <<'PY'
print("meta capture.fd_flags 400:5:040002")
# pid 100: libaio O_DIRECT reads of 4 KiB, one submitted every 10 us, each reaped 75 us
# later (by thread 101 every other time): 8 in flight at most; one pread of its own (a sync
# syscall in an async job) and a last request never reaped
print("100 100 0 10 openat path=/data/f flags=O_RDWR|O_DIRECT ret=3")
for i in range(40):
    sub = 100 + i * 10
    a = "fd=3 ctx=7 aux=%d subop=0 off=%d len=4096" % (i, i * 4096)
    print("100 100 %d %d aio_submit %s ret=1" % (sub, sub, a))
    print("100 %d %d %d aio_complete %s ret=4096" % (101 if i % 2 else 100, sub, sub + 75, a))
print("100 100 600 620 pread64 fd=3 off=0 len=4096 ret=4096")
print("100 100 700 700 aio_submit fd=3 ctx=7 aux=99 subop=0 off=8192 len=4096 ret=1")
# pid 200: io_uring buffered writes, 3 in flight at most (dup'd fd, not O_DIRECT)
print("200 200 0 10 openat path=/data/g flags=O_RDWR ret=4")
print("200 200 20 30 dup fd=4 ret=6")
for i in range(12):
    sub = 100 + i * 20
    a = "fd=6 ctx=9 aux=%d subop=23 off=%d len=8192" % (1000 + i, i * 8192)
    print("200 200 %d %d uring_submit %s ret=1" % (sub, sub, a))
    print("200 200 %d %d uring_complete %s ret=8192" % (sub, sub + 55, a))
# pid 300: 3 preads on an O_DIRECT fd (a dup of it), 1 on a buffered one: direct=1, psync
print("300 300 0 10 openat path=/data/h flags=O_RDONLY|O_DIRECT ret=3")
print("300 300 20 30 dup fd=3 ret=7")
for i in range(3):
    print("300 300 %d %d pread64 fd=7 off=%d len=4096 ret=4096" % (100 + i * 10, 105 + i * 10, i * 4096))
print("300 300 200 210 openat path=/data/h flags=O_RDONLY ret=4")
print("300 300 300 310 pread64 fd=4 off=0 len=4096 ret=4096")
# pid 400: an fd open before the capture with O_DIRECT (capture.fd_flags)
print("400 400 100 110 pwrite64 fd=5 path=/data/i off=0 len=4096 ret=4096")
# pid 500: buffered preads: psync, no direct
print("500 500 100 110 openat path=/data/j flags=O_RDONLY ret=3")
print("500 500 200 210 pread64 fd=3 off=0 len=512 ret=512")
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
def opts(j):
    return {k: jobs[j].get(k) for k in ("ioengine", "iodepth", "direct")}
want = {
    "pid100-tid100": dict(ioengine="libaio", iodepth="8", direct="1"),
    "pid200-tid200": dict(ioengine="io_uring", iodepth="3", direct=None),
    "pid300-tid300": dict(ioengine=None, iodepth=None, direct="1"),
    "pid400-tid400": dict(ioengine=None, iodepth=None, direct="1"),
    "pid500-tid500": dict(ioengine=None, iodepth=None, direct=None),
}
got = {j: opts(j) for j in want if j in jobs}
if got != want:
    print("FAIL: job options %s\n  want %s" % (got, want)); sys.exit(1)
if jobs["global"].get("ioengine") != "psync":
    print("FAIL: [global] ioengine %s" % jobs["global"].get("ioengine")); sys.exit(1)
PY
[ $? = 0 ] || exit 1
for re in 'cannot carry 1 reads/writes on buffered fds replayed O_DIRECT' \
	'cannot carry 1 reads/writes/syncs of sync syscalls replayed through their job.s async engine' \
	'cannot carry 1 async requests with no completion in the trace' \
	'wrote 5 iolog\(s\) with 60 reads/writes'; do
	grep -Eq "$re" "$dir/err" || fail "stderr lacks '$re': $(cat "$dir/err")"
done
grep -q 'replayed buffered' "$dir/err" && fail "O_DIRECT I/O said lost: $(cat "$dir/err")"

command -v fio > /dev/null || { echo "SKIP (the fio run): fio missing"; echo PASS; exit 0; }
mkdir -p "$dir/root/data"
( cd "$dir" && timeout 120 fio --output-format=json x/t.fio > x/fio.json 2> x/fio.err ) ||
	fail "fio on the export: $(cat "$dir/x/fio.err")"
python3 - "$dir/x/fio.json" <<'PY' || exit 1
import json, sys
jobs = {x["jobname"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
fail = 0
for name, (ios, engine) in {"pid100-tid100": (42, "libaio"), "pid200-tid200": (12, "io_uring"),
                            "pid300-tid300": (4, None)}.items():
    j = jobs[name]
    n = j["read"]["total_ios"] + j["write"]["total_ios"]
    if j["error"] or n != ios:
        print("FAIL: fio's %s: error %d, %d ios, want %d" % (name, j["error"], n, ios)); fail = 1
    if engine and j["job options"].get("ioengine") != engine:
        print("FAIL: fio's %s ran %s" % (name, j["job options"].get("ioengine"))); fail = 1
# fio queued the libaio job's requests beyond 1 at a time (its depth histogram)
lv = jobs["pid100-tid100"]["iodepth_level"]
if sum(v for k, v in lv.items() if k not in ("1",)) <= 0:
    print("FAIL: fio kept one request in flight at a time: %s" % lv); fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1
echo PASS
