#!/bin/bash
# A file there before the capture is prepared with holes where the application's
# lseek(SEEK_DATA) found them: from its offset to the data it landed on, or to the end
# (ENXIO). qemu-img map and convert walk a sparse raw image so (SEEK_DATA, SEEK_HOLE in
# turn); prepared dense, a 64 MiB image with 6 MiB of data took 64 MiB, its last SEEK_DATA
# succeeded where the original failed ENXIO, and the others landed elsewhere.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 10 openat path=/d/img flags=O_RDONLY ret=3
1 1 20 30 lseek fd=3 path=/d/img off=0 mode=SEEK_END ret=1048576
1 1 40 50 lseek fd=3 path=/d/img off=0 mode=SEEK_DATA ret=0
1 1 60 70 lseek fd=3 path=/d/img off=0 mode=SEEK_HOLE ret=65536
1 1 80 90 lseek fd=3 path=/d/img off=65536 mode=SEEK_DATA ret=524288
1 1 100 110 lseek fd=3 path=/d/img off=524288 mode=SEEK_HOLE ret=589824
1 1 120 130 lseek fd=3 path=/d/img off=589824 mode=SEEK_DATA ret=-ENXIO
1 1 140 150 pread64 fd=3 path=/d/img off=0 len=65536 ret=65536
1 1 160 170 pread64 fd=3 path=/d/img off=524288 len=65536 ret=65536
1 1 180 190 close fd=3 ret=0
SPEC
replay_as_traced original "SEEK_DATA on a file prepared without the holes the original had"
check_size "$T/tgt/d/img" 1048576 "img"
# the data lseeks landed where the original's did
"$IOREEL" dump --format csv "$T/t.reel" | awk -F, '$1=="lseek"{print $10}' >"$T/want"
"$IOREEL" dump --format csv "$T/r.reel" | awk -F, '$1=="lseek"{print $10}' >"$T/got"
cmp -s "$T/want" "$T/got" || fail "lseeks landed elsewhere: $(paste -d' ' "$T/want" "$T/got" | tr '\n' ';')"
# 128 KiB of data, the rest holes (a file system may allocate a little more around them)
alloc=$(($(stat -c %b "$T/tgt/d/img") * $(stat -c %B "$T/tgt/d/img")))
[ "$alloc" -le $((256 << 10)) ] || fail "img takes $alloc bytes, want its 128 KiB of data"
echo PASS
