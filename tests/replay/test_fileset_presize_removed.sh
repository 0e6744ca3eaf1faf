#!/bin/bash
# A file there before the capture that the application removes, cuts or replaces is
# prepared as long as it was (the size its first open or stat said: aux = size + 1), not as
# long as what was read of it: the unlink, the truncate or the rename over it frees its
# blocks, which costs by its size (ext4: milliseconds for a large file, microseconds for an
# empty one). A file only read stays as long as its bytes read.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 newfstatat fd=-100 path=/r/gone ret=0 subop=8 aux=1048577
1 1 2 3 unlink path=/r/gone ret=0
1 1 10 11 openat path=/r/cut flags=O_RDWR ret=3 aux=2097153
1 1 12 13 pread64 fd=3 off=0 len=4096 ret=4096
1 1 14 15 ftruncate fd=3 len=0 ret=0
1 1 16 17 close fd=3 ret=0
1 1 20 21 statx fd=-100 path=/r/old ret=0 subop=8 aux=524289
1 1 22 23 openat path=/r/new flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
1 1 24 25 close fd=3 ret=0
1 1 26 27 rename path=/r/new path2=/r/old ret=0
1 1 30 31 openat path=/r/read flags=O_RDONLY ret=3 aux=3145729
1 1 32 33 pread64 fd=3 off=0 len=4096 ret=4096
1 1 34 35 close fd=3 ret=0
SPEC
replay_as_traced original "a file removed, cut or replaced"
m="$T/tgt/.ioreel-prepared"
for want in "f 1048576 r/gone" "f 2097152 r/cut" "f 524288 r/old" "f 4096 r/read"; do
	grep -qx "$want" "$m" || fail "manifest lacks '$want': $(cat "$m")"
done
echo PASS
