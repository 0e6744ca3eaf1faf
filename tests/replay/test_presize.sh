#!/bin/bash
# A file open before the capture and written in place (InnoDB's preallocated 64 MiB redo log,
# its tablespaces) is prepared as long as it was then (the recorder's capture.fd_sizes): it
# was prepared only as long as the furthest byte read, so the replay's writes extended a
# short, sparse file (allocating blocks, fdatasync flushing the size) where the application
# overwrote. A file only read keeps the size its reads need.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
meta capture.fd_sizes 100:5:1048576 100:6:1048576 100:7:x 100:8:99999999999
100 100 100 110 pwrite64 fd=5 path=/d/log off=524288 len=4096 ret=4096
100 100 200 210 fdatasync fd=5 path=/d/log ret=0
100 100 300 310 pread64 fd=6 path=/d/ro off=0 len=4096 ret=4096
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
size=$(stat -c %s "$T/tgt/d/log")
blocks=$(stat -c %b "$T/tgt/d/log")
[ "$size" = 1048576 ] || fail "/d/log is $size bytes after the replay, was 1048576 before the capture"
[ $((blocks * 512)) -ge 1048576 ] || fail "/d/log has holes: $blocks blocks"
size=$(stat -c %s "$T/tgt/d/ro")
[ "$size" -lt 1048576 ] || fail "/d/ro, only read, prepared whole ($size bytes)"
echo PASS
