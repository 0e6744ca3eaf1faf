#!/bin/bash
# A file there before the capture, opened during it and written in place (PostgreSQL's
# preallocated 16 MiB WAL segment) is prepared as long as it was when opened: the open's aux
# (size + 1, FORMAT.md). It was prepared only as long as the furthest byte read, so the
# replay's pwrites extended the file where the original overwrote. Only when the open is the
# first op on its path (a later one may see a size the application made: /d/late, lengthened
# by its first pwrite) and the file is written (/d/ro, only read, keeps the size its reads
# need).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/wal flags=O_RDWR ret=5 kind=reg aux=1048577
100 100 200 210 pwrite64 fd=5 path=/d/wal off=8192 len=4096 ret=4096
100 100 300 310 fdatasync fd=5 path=/d/wal ret=0
100 100 400 410 openat fd=-100 path=/d/late flags=O_RDWR ret=6 kind=reg aux=1
100 100 500 510 pwrite64 fd=6 path=/d/late off=1048572 len=4 ret=4
100 100 600 610 close fd=6 path=/d/late ret=0
100 100 700 710 openat fd=-100 path=/d/late flags=O_RDWR ret=6 kind=reg aux=1048577
100 100 800 810 pwrite64 fd=6 path=/d/late off=0 len=4096 ret=4096
100 100 900 910 openat fd=-100 path=/d/ro flags=O_RDONLY ret=7 kind=reg aux=1048577
100 100 1000 1010 pread64 fd=7 path=/d/ro off=0 len=4096 ret=4096
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" ||
	fail "outcomes differ: $(cat "$T/out")"
size=$(stat -c %s "$T/tgt/d/wal")
blocks=$(stat -c %b "$T/tgt/d/wal")
[ "$size" = 1048576 ] || fail "/d/wal is $size bytes after the replay, was 1048576 when opened"
[ $((blocks * 512)) -ge 1048576 ] || fail "/d/wal has holes: $blocks blocks"
size=$(stat -c %s "$T/tgt/d/ro")
[ "$size" -lt 1048576 ] || fail "/d/ro, only read, prepared whole ($size bytes)"
# prepared empty (its first open's size), not 1 MiB: its pwrites leave it sparse
blocks=$(stat -c %b "$T/tgt/d/late")
[ $((blocks * 512)) -lt 1048576 ] ||
	fail "/d/late prepared with the size a later open saw ($blocks blocks)"
echo PASS
