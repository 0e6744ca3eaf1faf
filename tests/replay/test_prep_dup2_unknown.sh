#!/bin/bash
# The file set follows a dup2 over an fd of an fd whose file the trace does not know (open
# before the capture): the fd no longer names the file it had, so a read on it after the
# dup2 does not size that file. It prepared /d/a 1 MiB long for a read that was not its.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/d/a flags=O_RDONLY ret=5
100 100 20 30 pread64 fd=5 off=0 len=4096 ret=4096
100 100 40 50 dup2 fd=9 fd2=5 ret=5
100 100 60 70 pread64 fd=5 off=1048576 len=4096 ret=4096
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
size=$(stat -c %s "$T/tgt/d/a") || fail "/d/a not prepared"
[ "$size" = 4096 ] || fail "/d/a prepared $size bytes long, not 4096"
echo PASS
