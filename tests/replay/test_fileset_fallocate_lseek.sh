#!/bin/bash
# An lseek's SEEK_END, SEEK_HOLE or SEEK_DATA shows how long a file there before the capture
# was, and a SEEK_DATA where it had holes (replay_fileset_scan.c, lseek__size and hole__found),
# only until the application changed what they show. A fallocate past the end (mode 0, no
# FALLOC_FL_KEEP_SIZE) makes the length the application's: /d/grown, 1000 bytes before the
# capture, was prepared 64 KiB long after the SEEK_END that followed its fallocate, and the
# replay's read before the fallocate read 4096 bytes where the original's read 1000. A
# punched hole was data before: /d/punched was prepared with a hole where its SEEK_DATA after
# the punch found one, and its SEEK_DATA before the punch landed past it. A fallocate that
# keeps the size keeps what SEEK_END shows (/d/kept: 3000 bytes). "outcomes differing" counts
# errors, not byte counts: the returns are compared here.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 10 openat path=/d/grown flags=O_RDWR ret=3
1 1 20 30 pread64 fd=3 path=/d/grown off=0 len=4096 ret=1000
1 1 40 50 fallocate fd=3 path=/d/grown mode=0 off=0 len=65536 ret=0
1 1 60 70 lseek fd=3 path=/d/grown off=0 mode=SEEK_END ret=65536
1 1 100 110 close fd=3 path=/d/grown ret=0
1 1 200 210 openat path=/d/punched flags=O_RDWR ret=3
1 1 220 230 lseek fd=3 path=/d/punched off=0 mode=SEEK_DATA ret=0
1 1 240 250 fallocate fd=3 path=/d/punched mode=3 off=0 len=4096 ret=0
1 1 260 270 lseek fd=3 path=/d/punched off=0 mode=SEEK_DATA ret=4096
1 1 280 290 pread64 fd=3 path=/d/punched off=4096 len=4096 ret=4096
1 1 300 310 close fd=3 path=/d/punched ret=0
1 1 400 410 openat path=/d/kept flags=O_RDWR ret=3
1 1 420 430 fallocate fd=3 path=/d/kept mode=1 off=0 len=65536 ret=0
1 1 440 450 lseek fd=3 path=/d/kept off=0 mode=SEEK_END ret=3000
1 1 460 470 close fd=3 path=/d/kept ret=0
SPEC
replay_as_traced afap "a file prepared from an lseek after the application's fallocate"
# every op returned what the original's did: the reads as many bytes, the lseeks as far
"$IOREEL" dump --format csv "$T/t.reel" | awk -F, 'NR>1{print $1, $6, $10}' >"$T/want"
"$IOREEL" dump --format csv "$T/r.reel" | awk -F, 'NR>1{print $1, $6, $10}' >"$T/got"
diff "$T/want" "$T/got" >"$T/diff" || fail "returns differ (original, replay): $(cat "$T/diff")"
# the replay's own fallocate made it 64 KiB long, as in the original
check_size "$T/tgt/d/grown" 65536 "grown after its fallocate"
check_size "$T/tgt/d/kept" 3000 "SEEK_END after a fallocate that keeps the size"
echo PASS
