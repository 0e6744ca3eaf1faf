#!/bin/bash
# A name first found absent, then made by an open with O_CREAT (without O_EXCL), is the
# application's: the directory it was made in was there, and is prepared even when no other
# path tells so. The Go linker removes its output first (unlinkat, then unlinkat with
# AT_REMOVEDIR: ENOENT), then opens it O_RDWR|O_CREAT|O_TRUNC: the name stayed "absent",
# nothing above it was prepared, and the open failed with ENOENT in the replay.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 unlinkat fd=-100 path=/r/out/a.out flags=0 ret=-ENOENT
1 1 2 3 unlinkat fd=-100 path=/r/out/a.out flags=AT_REMOVEDIR ret=-ENOENT
1 1 4 5 openat path=/r/out/a.out flags=O_RDWR|O_CREAT|O_TRUNC mode=0755 ret=3
1 1 6 7 pwrite64 fd=3 off=0 len=4096 ret=4096
1 1 8 9 close fd=3 ret=0
1 1 10 11 stat path=/r/gone ret=-ENOENT
1 1 12 13 stat path=/r/gone/x ret=-ENOENT
SPEC
replay_as_traced original "the open that made a name first found absent failed"
m="$T/tgt/.ioreel-prepared"
grep -qx "d r/out" "$m" || fail "r/out not prepared: $(cat "$m")"
! grep -q "r/out/a.out" "$m" || fail "a.out, made by the application, prepared: $(cat "$m")"
! grep -q "r/gone" "$m" || fail "r/gone, found absent, prepared: $(cat "$m")"
check_size "$T/tgt/r/out/a.out" 4096 "a.out"
echo PASS
