#!/bin/bash
# A file there before the capture, stat'ed, then opened and written in place, is prepared as
# long as its open said: a stat, an access or a readlink before the open changes no size.
# mke2fs on a 300 MiB image file (made by truncate before the capture) stats it three times
# before it opens it: the image was prepared at the 303,104 bytes it read, and a replay on
# tmpfs (which refuses its fallocate(FALLOC_FL_ZERO_RANGE) that extended it to 300 MiB) left
# it 268 MB long, the original 300 MiB. /d/late: an open after a write (its size may be the
# application's) still says nothing.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 10 20 newfstatat fd=-100 path=/d/img ret=0
100 100 30 40 access fd=-100 path=/d/img ret=0
100 100 100 110 openat fd=-100 path=/d/img flags=O_RDWR ret=5 kind=reg aux=1048577
100 100 150 160 pread64 fd=5 path=/d/img off=0 len=4096 ret=4096
100 100 200 210 pwrite64 fd=5 path=/d/img off=8192 len=4096 ret=4096
100 100 300 310 close fd=5 path=/d/img ret=0
100 100 400 410 newfstatat fd=-100 path=/d/late ret=0
100 100 420 430 openat fd=-100 path=/d/late flags=O_RDWR ret=6 kind=reg aux=1
100 100 500 510 pwrite64 fd=6 path=/d/late off=1048572 len=4 ret=4
100 100 600 610 close fd=6 path=/d/late ret=0
100 100 700 710 openat fd=-100 path=/d/late flags=O_RDWR ret=6 kind=reg aux=1048577
100 100 800 810 pwrite64 fd=6 path=/d/late off=0 len=4096 ret=4096
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" ||
	fail "outcomes differ: $(cat "$T/out")"
size=$(stat -c %s "$T/tgt/d/img")
blocks=$(stat -c %b "$T/tgt/d/img")
[ "$size" = 1048576 ] || fail "/d/img is $size bytes after the replay, was 1048576 when opened"
[ $((blocks * 512)) -ge 1048576 ] || fail "/d/img has holes: $blocks blocks"
blocks=$(stat -c %b "$T/tgt/d/late")
[ $((blocks * 512)) -lt 1048576 ] ||
	fail "/d/late prepared with the size a later open saw ($blocks blocks)"
echo PASS
