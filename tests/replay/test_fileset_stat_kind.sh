#!/bin/bash
# A stat that recorded what it found (FORMAT.md, "The stat family": subop = S_IFMT >> 12,
# aux = size + 1) tells the file set the kind of a name nothing else tells it of: a
# directory only stat'd before the application renamed and removed it was prepared as a
# file (the rmdir then failed with ENOTDIR). And, as an open's size does, the size a stat saw
# before anything else touched the file is the one it had: a file written in place is
# prepared that long.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 newfstatat fd=-100 path=/r/d ret=0 subop=4 aux=4097
1 1 2 3 rename path=/r/d path2=/r/d.old ret=0
1 1 4 5 rmdir path=/r/d.old ret=0
1 1 10 11 statx fd=-100 path=/r/f ret=0 subop=8 aux=10001
1 1 12 13 unlink path=/r/f ret=0
1 1 20 21 stat path=/r/w ret=0 subop=8 aux=65537
1 1 22 23 openat path=/r/w flags=O_WRONLY ret=3
1 1 24 25 pwrite64 fd=3 off=4096 len=10 ret=10
1 1 26 27 close fd=3 ret=0
SPEC
replay_as_traced original "a directory known only by a stat was prepared as a file"
m="$T/tgt/.ioreel-prepared"
grep -qx "d r/d" "$m" || fail "r/d not prepared as a directory: $(cat "$m")"
grep -qx "f 65536 r/w" "$m" || fail "r/w not prepared at its stat's size (65536): $(cat "$m")"
check_size "$T/tgt/r/w" 65536 "r/w, written in place"
echo PASS
