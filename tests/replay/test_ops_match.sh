#!/bin/bash
# A replay issues exactly the ops of its trace (result trace: same types, same order, per
# thread), every op is timed (failed lookups too, in a directory the trace shows missing as
# well), files end with the sizes the trace implies, and prepared files are real data: not
# sparse (st_blocks*512 >= size) and without zero bytes.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/srv/app/db flags=O_RDONLY ret=3
100 100 100 150 pread64 fd=3 off=0 len=4096 ret=4096
100 100 200 250 read fd=3 off=200000 len=8192 ret=8192
100 101 300 400 openat path=/srv/app/log flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=4
100 101 500 600 write fd=4 off=0 len=1000 ret=1000
100 101 700 900 fsync fd=4 ret=0
100 101 950 960 pwrite64 fd=4 off=1000 len=24 ret=24
100 100 1000 1010 newfstatat path=/srv/app/db ret=0
100 102 990 995 stat path=/srv/nodir ret=-ENOENT
100 102 1000 1010 stat path=/srv/app/missing ret=-ENOENT
100 102 1010 1020 stat path=/srv/nodir/x ret=-ENOENT
100 102 1020 1030 openat path=/srv/nodir/y flags=O_RDONLY ret=-ENOENT
100 102 1030 1040 truncate path=/srv/app/gone len=0 ret=-ENOENT
100 102 1100 1200 openat path=/srv/app/idx flags=O_RDWR ret=5
100 102 1300 1400 pread64 fd=5 off=12288 len=4096 ret=4096
100 102 1500 1600 pwrite64 fd=5 off=0 len=512 ret=512
100 102 1700 1800 fdatasync fd=5 ret=0
100 100 1100 1110 close fd=3 ret=0
100 101 1200 1210 close fd=4 ret=0
100 102 1900 1910 close fd=5 ret=0
101 200 2000 2100 openat path=/srv/app/db flags=O_RDONLY ret=3
101 200 2200 2300 pread64 fd=3 off=300000 len=100 ret=100
101 200 2400 2410 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" > "$T/out" 2>&1 || {
	cat "$T/out"
	fail "replay failed"
}
check_same_ops "$T/t.reel" "$T/r.reel"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "outcomes differ"
}
# every op was timed, failed lookups too (they cost what the lookup costs, never 0 ns)
"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["end_ns"] <= o["start_ns"]:
        sys.exit("%s %s ret %d: start %d, end %d" % (o["op"], o["path"], o["ret"], o["start_ns"], o["end_ns"]))
' || fail "an op was not timed"
size() { stat -c %s "$1"; }
# db: furthest byte read 300100; idx: 16384; log: created by the app, 1024 after the replay
[ "$(size "$T/tgt/srv/app/db")" = 300100 ] || fail "db size $(size "$T/tgt/srv/app/db")"
[ "$(size "$T/tgt/srv/app/idx")" = 16384 ] || fail "idx size"
[ "$(size "$T/tgt/srv/app/log")" = 1024 ] || fail "log size $(size "$T/tgt/srv/app/log")"
[ ! -e "$T/tgt/srv/app/missing" ] || fail "missing file was prepared"
[ ! -e "$T/tgt/srv/nodir" ] || fail "parent of missing files was prepared"
for f in db idx; do
	p="$T/tgt/srv/app/$f"
	blocks=$(stat -c %b "$p")
	[ $((blocks * 512)) -ge "$(size "$p")" ] || fail "$f is sparse"
	zeros=$(tr -d '\001-\377' < "$p" | wc -c)
	[ "$zeros" = 0 ] || fail "$f has $zeros zero bytes"
done
echo PASS
