#!/bin/bash
# report: ops on files under /proc, /sys and /dev (not /dev/shm) are no storage work, as
# replay sees them: left out of the original's distributions like pipe and socket I/O, so
# that the original and its replay measure the same ops. They were measured in the
# original only (their fds are regular files or directories): fio's getdents64 of /sys
# were said "not replayed", and /proc opens weighed in the original's openat.
# usage: report_pseudo_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup pseudo "$@"

"$MKTRACE" "$T/t.reel" <<'SPEC' || exit 1
100 100 0 10 openat path=/srv/data flags=O_RDONLY ret=3
100 100 20 30 pread64 fd=3 off=0 len=4096 ret=4096
100 100 40 50 openat path=/sys/devices/system/node flags=O_RDONLY|O_DIRECTORY kind=dir ret=4
100 100 60 70 getdents64 fd=4 len=32768 kind=dir ret=360
100 100 80 90 close fd=4 kind=dir ret=0
100 100 100 110 openat path=/proc/self/stat flags=O_RDONLY ret=5
100 100 120 130 read fd=5 len=1024 ret=300
100 100 140 150 close fd=5 ret=0
100 100 160 170 newfstatat path=/dev/null ret=0
100 100 180 190 openat path=/dev/shm/seg flags=O_RDONLY ret=6
100 100 200 210 pread64 fd=6 off=0 len=512 ret=512
100 100 220 230 close fd=6 ret=0
100 100 240 250 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -q -o "$T/r.reel" || exit 1
"$IOREEL" report --json "$T/t.reel" "$T/r.reel" >"$T/r.json" || exit 1
"$IOREEL" report "$T/t.reel" "$T/r.reel" >"$T/r.txt" || exit 1
python3 - "$T/r.json" "$T/r.txt" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
o, r = doc["runs"]
fails = []
if o["ops_measured"] != 6 or o["ops_nonfile"] != 7:
    fails.append("original: %d ops measured, %d non-file; want 6 and 7" %
                 (o["ops_measured"], o["ops_nonfile"]))
if r["ops_measured"] != o["ops_measured"]:
    fails.append("replay measured %d ops, original %d" % (r["ops_measured"], o["ops_measured"]))
for k in ("getdents64", "read", "newfstatat"):
    if k in o["ops_by_type"]:
        fails.append("original measures %s" % k)
if o["ops_by_type"].get("openat", {}).get("count") != 2:
    fails.append("original openat: %r, want 2" % o["ops_by_type"].get("openat"))
if "not replayed" in open(sys.argv[2]).read():
    fails.append("text report says ops were not replayed")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
[ $? = 0 ] || exit 1

# A dup2 over an fd on /proc, from an fd whose file the trace does not know (open before the
# capture): the fd no longer names /proc/self/stat, and its pread and fsync are storage work
"$MKTRACE" "$T/d.reel" <<'SPEC' || exit 1
100 100 0 10 openat path=/proc/self/stat flags=O_RDONLY ret=5
100 100 20 30 read fd=5 len=1024 ret=300
100 100 40 50 dup2 fd=9 fd2=5 ret=5
100 100 60 70 pread64 fd=5 off=0 len=4096 ret=4096
100 100 80 90 fsync fd=5 ret=0
SPEC
"$IOREEL" report --json "$T/d.reel" >"$T/d.json" || exit 1
python3 - "$T/d.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["runs"][0]
kinds = sorted(o["ops_by_type"])
if (o["ops_measured"], o["ops_nonfile"], kinds) != (3, 2, ["dup2", "fsync", "pread64"]):
    print("FAIL: after the dup2: %d measured (%s), %d non-file; want 3 (dup2, fsync, "
          "pread64) and 2" % (o["ops_measured"], ", ".join(kinds), o["ops_nonfile"]))
    sys.exit(1)
PY
[ $? = 0 ] || exit 1
echo PASS
