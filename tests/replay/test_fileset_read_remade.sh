#!/bin/bash
# A file there before the capture, read through an fd opened before its name was made anew
# (a rename over it, or an unlink and a create): the fd still reads the old file, so those
# reads tell the old file's extent, prepared under the name (replay_fileset_scan.c, FDV_GEN0);
# counted for the new file, which is the application's, they told nothing, and the reads came
# out short in the replay. Reads through an fd opened after the remake are of the new file.
# The application's writes to the old file before do not hide its bytes read after (stress
# seed 5246: 7 reads came out empty).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
# renamed over (a log rotated under its reader), then read further through the old fd
1 1 0 1 openat path=/r/log flags=O_RDONLY ret=3
1 1 2 3 pread64 fd=3 off=0 len=4096 ret=4096
1 1 4 5 openat path=/r/log.new flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=4
1 1 6 7 pwrite64 fd=4 off=0 len=100 ret=100
1 1 8 9 close fd=4 ret=0
1 1 10 11 rename path=/r/log.new path2=/r/log ret=0
1 1 12 13 pread64 fd=3 off=4096 len=8192 ret=8192
1 1 14 15 close fd=3 ret=0
1 1 16 17 openat path=/r/log flags=O_RDONLY ret=3
1 1 18 19 pread64 fd=3 off=0 len=4096 ret=100
1 1 20 21 close fd=3 ret=0
# removed and created again; the old fd, and a dup of it, read on
1 1 30 31 openat path=/r/data flags=O_RDONLY ret=3
1 1 32 33 unlink path=/r/data ret=0
1 1 34 35 openat path=/r/data flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=4
1 1 36 37 pwrite64 fd=4 off=0 len=10 ret=10
1 1 38 39 dup fd=3 ret=5
1 1 40 41 pread64 fd=5 off=0 len=5000 ret=5000
1 1 42 43 pread64 fd=4 off=0 len=4096 ret=10
1 1 44 45 close fd=3 ret=0
1 1 46 47 close fd=4 ret=0
1 1 48 49 close fd=5 ret=0
# written through the old fd before the rename over it: its bytes beyond still count
1 1 60 61 openat path=/r/db flags=O_RDWR ret=3
1 1 62 63 pwrite64 fd=3 off=0 len=100 ret=100
1 1 64 65 openat path=/r/db.new flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=4
1 1 66 67 close fd=4 ret=0
1 1 68 69 rename path=/r/db.new path2=/r/db ret=0
1 1 70 71 pread64 fd=3 off=4096 len=4096 ret=4096
1 1 72 73 close fd=3 ret=0
SPEC
for timing in original afap; do
	replay_as_traced $timing "a read through an fd opened before its name was made anew"
done
m="$T/tgt/.ioreel-prepared"
grep -qx "f 12288 r/log" "$m" || fail "r/log not prepared at 12288 bytes: $(cat "$m")"
grep -qx "f 5000 r/data" "$m" || fail "r/data not prepared at 5000 bytes: $(cat "$m")"
grep -qx "f 8192 r/db" "$m" || fail "r/db not prepared at 8192 bytes: $(cat "$m")"
check_size "$T/tgt/r/log" 100 "r/log, renamed over"
check_size "$T/tgt/r/data" 10 "r/data, made again"
echo PASS
