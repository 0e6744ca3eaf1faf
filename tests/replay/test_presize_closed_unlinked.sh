#!/bin/bash
# A file open before the capture whose fd the trace only closes, then removed by name:
# InfluxDB's compaction, recorded with -p, closes a TSM file it had mapped since before the
# attach (capture.fd_sizes: 2,642,187 bytes) and unlinks it. The close was the fd's only op
# and did not take the size the recorder gave, so the file was prepared empty and its
# unlink freed no blocks (ext4: 1.57 ms in the original for that one). Also a rename over
# such a file, and one the fd's close tells nothing of (only read: its reads' extent).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
meta capture.fd_sizes 100:16:2642187 100:17:300000 100:18:500000
100 101 100 110 close fd=16 path=/d/old.tsm ret=0
100 101 200 210 unlinkat fd=-100 path=/d/old.tsm ret=0
100 101 300 310 close fd=17 path=/d/b.tsm ret=0
100 101 400 410 openat fd=-100 path=/d/b.tmp flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=5
100 101 500 510 close fd=5 path=/d/b.tmp ret=0
100 101 600 610 rename path=/d/b.tmp path2=/d/b.tsm ret=0
100 101 700 710 pread64 fd=18 path=/d/ro.tsm off=0 len=4096 ret=4096
100 101 800 810 close fd=18 path=/d/ro.tsm ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
m=$T/tgt/.ioreel-prepared
grep -qx "f 2642187 d/old.tsm" "$m" ||
	fail "old.tsm not prepared as long as it was open before the capture: $(grep old.tsm "$m")"
grep -qx "f 300000 d/b.tsm" "$m" ||
	fail "b.tsm, renamed over, not prepared as long as it was: $(grep b.tsm "$m")"
grep -qx "f 4096 d/ro.tsm" "$m" || fail "ro.tsm, only read, not prepared at its extent: $(grep ro.tsm "$m")"
echo PASS
