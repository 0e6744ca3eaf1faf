#!/bin/bash
# --cold leaves the file set out of the page cache before the first op (fincore), and
# non-file I/O (sockets, pipes by fd kind; /proc, /sys, /dev paths and their fds) is not
# replayed but counted; /dev/shm paths are files like any other.
source "$(dirname "$0")/lib.sh"
command -v fincore >/dev/null || exit 77
[ "$(id -u)" = 0 ] || exit 77

mk t <<'SPEC'
100 100 0 10 openat path=/d/big flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=4190208 len=4096 ret=4096
100 100 200 210 read fd=7 kind=sock len=100 ret=100
100 100 300 310 write fd=8 kind=fifo len=1 ret=1
100 100 400 410 openat path=/proc/self/status flags=O_RDONLY ret=9
100 100 500 510 read fd=9 len=4096 ret=1000
100 100 600 610 close fd=9 ret=0
100 100 700 710 openat path=/dev/shm/app.shm flags=O_RDONLY ret=10
100 100 800 810 pread64 fd=10 off=0 len=8192 ret=8192
100 100 900 910 close fd=10 ret=0
100 100 1000 1010 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" -q || fail "prepare run"
cat "$T/tgt/d/big" >/dev/null
cached=$(fincore -b -n -o RES "$T/tgt/d/big" | tr -d ' ')
[ "$cached" -gt 0 ] || exit 77 # this file system keeps no page cache to drop
# an op at 1 s leaves time to look at the page cache after --cold dropped it
{
	cat <<'SPEC'
100 100 0 10 openat path=/d/big flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=4190208 len=4096 ret=4096
100 100 1000000 1000010 close fd=3 ret=0
SPEC
} | mk c
"$IOREEL" replay "$T/c.reel" --target "$T/tgt2" -o "$T/c1.reel" -q || fail "prepare c"
cat "$T/tgt2/d/big" >/dev/null
"$IOREEL" replay "$T/c.reel" --target "$T/tgt2" --cold -o "$T/c2.reel" -q 2>/dev/null &
pid=$!
sleep 0.6
cached=$(fincore -b -n -o RES "$T/tgt2/d/big" | tr -d ' ')
wait $pid || fail "--cold replay"
# only the one 4 KiB page read (and its readahead) may be back in the cache
[ "$cached" -lt $((1024 * 1024)) ] || fail "--cold: $cached bytes of d/big still cached"

"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 || fail "replay"
grep -q "11 in trace, 6 replayed by 1 thread, 5 non-file skipped" "$T/out" || {
	cat "$T/out"
	fail "non-file ops not skipped and counted"
}
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ"
[ "$(stat -c %s "$T/tgt/dev/shm/app.shm")" = 8192 ] || fail "/dev/shm file not prepared"
[ ! -e "$T/tgt/proc" ] || fail "/proc prepared"
echo PASS
