#!/bin/bash
# --map sends a subtree elsewhere: a prefix rule and a glob rule put their files (prepared
# and created ones) under their own directories and nothing of theirs under --target;
# everything else stays under --target.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/var/lib/pg/base/1 flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=0 len=8192 ret=8192
100 100 200 210 openat path=/var/lib/pg/pg_wal/0001 flags=O_RDWR ret=4
100 100 300 310 pread64 fd=4 off=0 len=16384 ret=16384
100 100 400 410 openat path=/var/lib/pg/pg_wal/0002 flags=O_WRONLY|O_CREAT|O_EXCL mode=0600 ret=5
100 100 500 510 pwrite64 fd=5 off=0 len=4096 ret=4096
100 100 600 610 openat path=/var/lib/pg/tmp/sort.tmp flags=O_RDONLY ret=6
100 100 700 710 pread64 fd=6 off=0 len=1000 ret=1000
100 100 800 810 close fd=3 ret=0
100 100 810 820 close fd=4 ret=0
100 100 820 830 close fd=5 ret=0
100 100 830 840 close fd=6 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --map /var/lib/pg/pg_wal="$T/wal" \
	--map '*.tmp'="$T/tmp" -o "$T/r.reel" >"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
[ "$(stat -c %s "$T/tgt/var/lib/pg/base/1")" = 8192 ] || fail "base/1 not under target"
[ "$(stat -c %s "$T/wal/0001")" = 16384 ] || fail "wal/0001 not prepared in the map dir"
[ "$(stat -c %s "$T/wal/0002")" = 4096 ] || fail "wal/0002 not created in the map dir"
[ "$(stat -c %s "$T/tmp/sort.tmp")" = 1000 ] || fail "glob rule: sort.tmp not in tmp dir"
[ ! -e "$T/tgt/var/lib/pg/pg_wal" ] || fail "pg_wal also under the target"
[ ! -e "$T/tgt/var/lib/pg/tmp/sort.tmp" ] || fail "sort.tmp also under the target"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ"
check_same_ops "$T/t.reel" "$T/r.reel"
"$IOREEL" info "$T/r.reel" >/dev/null 2>&1 || true
# glob form with a directory pattern
"$IOREEL" replay "$T/t.reel" --target "$T/tgt2" --map '*/pg_wal/*'="$T/wal2" -o "$T/r2.reel" \
	-q || fail "replay 2"
[ -e "$T/wal2/0001" ] && [ -e "$T/wal2/0002" ] || fail "dir glob rule did not map pg_wal"
# the directory a glob matches, with paths below it, is TO itself: its own ops (a stat, an
# fsync of it) go there, and no empty TO/pg_wal is made beside its files
{
	echo "100 100 0 10 openat path=/var/lib/pg/pg_wal flags=O_RDONLY|O_DIRECTORY kind=dir ret=3"
	echo "100 100 100 110 fsync fd=3 kind=dir ret=0"
	echo "100 100 200 210 openat path=/var/lib/pg/pg_wal/0001 flags=O_RDWR ret=4"
	echo "100 100 300 310 pread64 fd=4 off=0 len=16384 ret=16384"
	echo "100 100 400 410 newfstatat path=/var/lib/pg/pg_wal ret=0 subop=4"
} | mk d
"$IOREEL" replay "$T/d.reel" --target "$T/tgt4" --map '*/pg_wal'="$T/wal4" -o "$T/r4.reel" \
	>"$T/out" 2>&1 || fail "replay 4: $(cat "$T/out")"
[ -f "$T/wal4/0001" ] || fail "pg_wal/0001 not in the map dir"
[ ! -e "$T/wal4/pg_wal" ] || fail "an empty pg_wal made inside the map dir"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "dir glob: outcomes differ"
# a map target inside the target is refused
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --map /var/lib/pg/pg_wal="$T/tgt/wal" \
	-o "$T/r3.reel" -q 2>"$T/err" && fail "nested map target accepted"
grep -q "nested" "$T/err" || fail "bad message: $(cat "$T/err")"
echo PASS
