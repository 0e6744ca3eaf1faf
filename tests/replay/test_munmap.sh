#!/bin/bash
# munmap (format 1.2): the replay unmaps its mapping of a range the original unmapped whole,
# so that a removal of the file afterwards frees its blocks as the original's did (InfluxDB's
# compaction: maps a TSM file, unmaps it, unlinks it; without the munmap the replay still
# held the mapping and the unlink freed nothing: 8-9 us replayed, 488-661 us recorded). What
# is left of a mapping the munmap only cuts stays, and its removal is counted as one of a
# mapped file (test_munmap_partial.sh: the cut itself).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/a.tsm flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=5
100 100 200 210 pwrite64 fd=5 path=/d/a.tsm off=0 len=262144 ret=262144
100 100 300 310 mmap fd=5 path=/d/a.tsm off=0 len=262144 flags=1 mode=1 aux=0x7f0000000000 ret=0x7f0000000000
100 100 400 410 close fd=5 path=/d/a.tsm ret=0
100 100 500 510 openat fd=-100 path=/d/b.tsm flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=6
100 100 600 610 pwrite64 fd=6 path=/d/b.tsm off=0 len=8192 ret=8192
100 100 700 710 mmap fd=6 path=/d/b.tsm off=0 len=8192 flags=1 mode=1 aux=0x7f0000100000 ret=0x7f0000100000
100 100 800 810 close fd=6 path=/d/b.tsm ret=0
100 100 900 910 munmap path=/d/a.tsm aux=0x7f0000000000 len=262144 ret=0
100 100 1000 1010 munmap path=/d/b.tsm aux=0x7f0000101000 len=4096 ret=0
100 100 1100 1110 munmap aux=0x7f0000000001 len=4096 ret=-EINVAL
100 100 1200 1210 unlinkat fd=-100 path=/d/a.tsm ret=0
100 100 1300 1310 unlinkat fd=-100 path=/d/b.tsm ret=0
SPEC
replay_as_traced original "the munmaps"
# a.tsm was unmapped whole before its unlink: not counted; b.tsm only cut: counted
grep -q "^  1 unlinks or renames over the last name of a file the replay still had mapped" \
	"$T/out" || fail "want 1 removal of a mapped file (b.tsm): $(cat "$T/out")"
got=$("$IOREEL" dump --format csv "$T/r.reel" | awk -F, '$1 == "munmap" { printf "%s ", $10 }')
[ "$got" = "0 0 -22 " ] || fail "munmap results '$got', want '0 0 -22 '"
echo PASS
