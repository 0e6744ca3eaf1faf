#!/bin/bash
# A file the application maps, closes and later removes (InfluxDB's compaction: a TSM file
# written, renamed into place, mmapped; replaced, closed and unlinked; its munmap is not
# in the trace). The replay still holds its mapping at the unlink, so the unlink freed no
# blocks (ext4: 8 us in the replay, 488-661 us in the original) and nothing said so. The
# summary and the report count such removals; a mapped file with another name left, or one
# no longer mapped, is not counted.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/a.tsm flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=5
100 100 200 210 pwrite64 fd=5 path=/d/a.tsm off=0 len=262144 ret=262144
100 100 300 310 mmap fd=5 path=/d/a.tsm off=0 len=262144 flags=1 mode=1 aux=0x7f0000000000 ret=0x7f0000000000
100 100 400 410 close fd=5 path=/d/a.tsm ret=0
100 100 500 510 openat fd=-100 path=/d/b.tsm flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=6
100 100 600 610 pwrite64 fd=6 path=/d/b.tsm off=0 len=4096 ret=4096
100 100 700 710 mmap fd=6 path=/d/b.tsm off=0 len=4096 flags=1 mode=1 aux=0x7f0000100000 ret=0x7f0000100000
100 100 800 810 link path=/d/b.tsm path2=/d/b.keep ret=0
100 100 900 910 unlinkat fd=-100 path=/d/b.tsm ret=0
100 100 1000 1010 openat fd=-100 path=/d/c.tmp flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=7
100 100 1100 1110 close fd=7 path=/d/c.tmp ret=0
100 100 1200 1210 rename path=/d/c.tmp path2=/d/b.keep ret=0
100 100 1300 1310 unlinkat fd=-100 path=/d/a.tsm ret=0
100 100 1400 1410 openat fd=-100 path=/d/e.tmp flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=8
100 100 1500 1510 close fd=8 path=/d/e.tmp ret=0
100 100 1600 1610 unlinkat fd=-100 path=/d/e.tmp ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
# a.tsm (unlinked) and b.keep's file (renamed over; b.tsm was not its last name): 2
grep -q "^  2 unlinks or renames over the last name of a file the replay still had mapped" \
	"$T/out" || fail "removals of mapped files not counted (2): $(cat "$T/out")"
grep -q "2 unlinks (or renames over) removed the last name of a file the replay still had mapped" \
	"$T/out" || fail "the report does not say so: $(cat "$T/out")"
echo PASS
