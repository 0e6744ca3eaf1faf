#!/bin/bash
# An open that succeeded in the original fails in the replay (here: O_RDWR of what the
# trace shows is a directory, EISDIR): the open counts as an outcome that differs, and each
# later op on its fd as not replayed, named, so that the summary's totals add up to the
# trace's ops.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 1 stat path=/d/dir/f ret=0"
	echo "100 100 10 11 openat path=/d/dir flags=O_RDWR ret=3"
	echo "100 100 20 21 pread64 fd=3 off=0 len=4096 ret=4096"
	echo "100 100 30 31 pread64 fd=3 off=4096 len=4096 ret=4096"
	echo "100 100 40 41 close fd=3 ret=0"
} | mk t
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
cat "$T/out"
grep -q "outcomes differing from the original: 1" "$T/out" || fail "the failed open not counted"
grep -q "ops not replayed: 3" "$T/out" || fail "the ops on its fd not counted as not replayed"
grep -q "pread64 (pid 100 tid 100 fd 3): its open failed in the replay" "$T/out" ||
	fail "the ops on its fd not named"
echo PASS
