#!/bin/bash
# A file there before the capture and read only by a name a rename or a link gave it is
# prepared, under its old name, as long as the furthest byte read by the new one
# (replay_fileset_scan.c, origin): rustc's incremental build hard-links its cached objects into
# target/debug/deps and the linker reads them there; prepared empty, those 6 reads came out
# 0 bytes long in the replay. What the new name's own writes or cuts made tells nothing of
# the old file, nor does a read by a name made anew after it was removed.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
# renamed, then read by the new name; then renamed on and read further by the third
1 1 0 1 rename path=/r/old path2=/r/new ret=0
1 1 2 3 openat path=/r/new flags=O_RDONLY ret=3
1 1 4 5 pread64 fd=3 off=0 len=4096 ret=4096
1 1 6 7 close fd=3 ret=0
1 1 8 9 rename path=/r/new path2=/r/third ret=0
1 1 10 11 openat path=/r/third flags=O_RDONLY ret=3
1 1 12 13 pread64 fd=3 off=4096 len=4096 ret=4096
1 1 14 15 close fd=3 ret=0
# linked, then read by the link (the old name stays)
1 1 20 21 linkat path=/r/src path2=/r/lnk ret=0
1 1 22 23 openat path=/r/lnk flags=O_RDONLY ret=3
1 1 24 25 pread64 fd=3 off=0 len=6000 ret=6000
1 1 26 27 close fd=3 ret=0
# renamed, then cut by the new name: the read after it is of the application's bytes
1 1 30 31 rename path=/r/cut path2=/r/cutnew ret=0
1 1 32 33 openat path=/r/cutnew flags=O_RDWR|O_TRUNC ret=3
1 1 34 35 pwrite64 fd=3 off=0 len=9000 ret=9000
1 1 36 37 pread64 fd=3 off=0 len=9000 ret=9000
1 1 38 39 close fd=3 ret=0
# linked, the link removed and made anew by the application: its reads are its own
1 1 40 41 linkat path=/r/src2 path2=/r/l2 ret=0
1 1 42 43 unlink path=/r/l2 ret=0
1 1 44 45 openat path=/r/l2 flags=O_RDWR|O_CREAT mode=0644 ret=3
1 1 46 47 pwrite64 fd=3 off=0 len=7000 ret=7000
1 1 48 49 pread64 fd=3 off=0 len=7000 ret=7000
1 1 50 51 close fd=3 ret=0
SPEC
replay_as_traced original "a read by a name a rename or link gave came out short"
m="$T/tgt/.ioreel-prepared"
has() { grep -qx -- "$1" "$m" || fail "manifest lacks '$1': $(cat "$m")"; }
has "f 8192 r/old"
has "f 6000 r/src"
has "f 0 r/cut"
has "f 0 r/src2"
for n in new third lnk cutnew l2; do
	! grep -q " r/$n\$" "$m" || fail "r/$n, made by the application, prepared: $(cat "$m")"
done
check_size "$T/tgt/r/third" 8192 "r/old renamed twice"
check_size "$T/tgt/r/src" 6000 "r/src, linked"
echo PASS
