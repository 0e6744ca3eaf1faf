#!/bin/bash
# A munmap of part of a mapping unmaps those pages of the replay's mapping too, as the kernel
# does, and keeps the rest: trimmed at either end, or split around a hole. An msync of the
# hole fails as the original's did (ENOMEM), one of either part still lands on its pages, and
# once every page is unmapped, piece by piece, the file's removal frees its blocks (the
# replay kept the whole mapping until a munmap covered it whole: the msync of the hole
# succeeded, and the removal was counted as one of a file still mapped).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/a.bin flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=5
100 100 200 210 pwrite64 fd=5 path=/d/a.bin off=0 len=20480 ret=20480
100 100 300 310 mmap fd=5 path=/d/a.bin off=0 len=20480 flags=1 mode=3 aux=0x7f0000000000 ret=0x7f0000000000
100 100 400 410 close fd=5 path=/d/a.bin ret=0
100 100 500 510 munmap path=/d/a.bin aux=0x7f0000002000 len=4096 ret=0
100 100 600 610 msync aux=0x7f0000002000 len=4096 flags=4 ret=-ENOMEM
100 100 700 710 msync aux=0x7f0000001000 len=4096 flags=4 ret=0
100 100 800 810 msync aux=0x7f0000003000 len=4096 flags=4 ret=0
100 100 900 910 munmap path=/d/a.bin aux=0x7f0000000000 len=4096 ret=0
100 100 1000 1010 msync aux=0x7f0000000000 len=4096 flags=4 ret=-ENOMEM
100 100 1100 1110 msync aux=0x7f0000001000 len=4096 flags=4 ret=0
100 100 1200 1210 munmap path=/d/a.bin aux=0x7f0000004000 len=4096 ret=0
100 100 1300 1310 msync aux=0x7f0000004000 len=4096 flags=4 ret=-ENOMEM
100 100 1400 1410 msync aux=0x7f0000003000 len=4096 flags=4 ret=0
100 100 1500 1510 munmap path=/d/a.bin aux=0x7f0000001000 len=4096 ret=0
100 100 1600 1610 munmap path=/d/a.bin aux=0x7f0000003000 len=4096 ret=0
100 100 1700 1710 msync aux=0x7f0000003000 len=4096 flags=4 ret=-ENOMEM
100 100 1800 1810 unlinkat fd=-100 path=/d/a.bin ret=0
SPEC
replay_as_traced original "part of a mapping unmapped"
! grep -q "the replay still had mapped" "$T/out" ||
	fail "a.bin still mapped after every page was unmapped: $(cat "$T/out")"
echo PASS
