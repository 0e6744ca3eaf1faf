#!/bin/bash
# An mmap is no read: a mapping may run far past the end of its file (LMDB maps its whole map
# size, 1 GiB by default here, over a data file of a few MiB; touching a page past the end is
# SIGBUS), so its length only says how much of the file the application could have read when
# the open says how long the file was then (aux = size + 1). The file set took every mmap's
# offset + length as read: mdb_load making a new database (open O_RDWR|O_CREAT of an empty
# data.mdb, pwrites, mmap of 1 GiB) had its data.mdb prepared as a 1 GiB file of filler, which
# the replay's writes left 1 GiB long against the original's 11 MiB (and 8 s of preparing).
# Checked: a file opened with its size known and mapped past it is prepared that long, a file
# the application made and mapped is not prepared and ends as long as its writes made it, a
# file of unknown size at open (aux 0: an import, an older trace) still by the mapping, a dup'ed
# fd keeps the size its open said, and a file an O_CREAT open of unknown size may have made
# (mdb_load's, imported from strace) is not made to exist by its mapping.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/db/data.mdb flags=O_RDONLY ret=3 kind=reg aux=20001
100 100 200 210 pread64 fd=3 path=/db/data.mdb off=0 len=152 ret=152
100 100 300 310 mmap fd=3 path=/db/data.mdb off=0 len=1048576 flags=1 mode=1 aux=0x7f0000000000 ret=0x7f0000000000
100 100 400 410 close fd=3 path=/db/data.mdb ret=0
100 100 500 510 openat fd=-100 path=/ld/data.mdb flags=O_RDWR|O_CREAT mode=0644 ret=4 kind=reg aux=1
100 100 600 610 pread64 fd=4 path=/ld/data.mdb off=0 len=152 ret=0
100 100 700 710 mmap fd=4 path=/ld/data.mdb off=0 len=1048576 flags=1 mode=1 aux=0x7f0000100000 ret=0x7f0000100000
100 100 800 810 pwrite64 fd=4 path=/ld/data.mdb off=0 len=8192 ret=8192
100 100 900 910 close fd=4 path=/ld/data.mdb ret=0
100 100 1000 1010 openat fd=-100 path=/old/f flags=O_RDONLY ret=5 kind=reg
100 100 1100 1110 mmap fd=5 path=/old/f off=0 len=65536 flags=2 mode=1 aux=0x7f0000200000 ret=0x7f0000200000
100 100 1200 1210 close fd=5 path=/old/f ret=0
100 100 1300 1310 openat fd=-100 path=/dup/f flags=O_RDONLY ret=6 kind=reg aux=3001
100 100 1400 1410 dup fd=6 path=/dup/f ret=7
100 100 1500 1510 close fd=6 path=/dup/f ret=0
100 100 1600 1610 mmap fd=7 path=/dup/f off=0 len=65536 flags=1 mode=1 aux=0x7f0000300000 ret=0x7f0000300000
100 100 1700 1710 close fd=7 path=/dup/f ret=0
100 100 1800 1810 openat fd=-100 path=/imp/data.mdb flags=O_RDWR|O_CREAT mode=0644 ret=8 kind=reg
100 100 1900 1910 pread64 fd=8 path=/imp/data.mdb off=0 len=152 ret=0
100 100 2000 2010 pwrite64 fd=8 path=/imp/data.mdb off=0 len=8192 ret=8192
100 100 2100 2110 mmap fd=8 path=/imp/data.mdb off=0 len=1048576 flags=1 mode=1 aux=0x7f0000400000 ret=0x7f0000400000
100 100 2200 2210 close fd=8 path=/imp/data.mdb ret=0
SPEC
for mode in original think afap; do
	replay_as_traced $mode "mmap past the end of a file"
	check_size "$T/tgt/db/data.mdb" 20000 "$mode: mapped past the size its open said"
	check_size "$T/tgt/ld/data.mdb" 8192 "$mode: made by the application, then mapped"
	check_size "$T/tgt/old/f" 65536 "$mode: size unknown at open"
	check_size "$T/tgt/dup/f" 3000 "$mode: mapped through a dup"
	check_size "$T/tgt/imp/data.mdb" 8192 "$mode: maybe made by the application, then mapped"
done
echo PASS
