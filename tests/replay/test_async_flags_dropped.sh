#!/bin/bash
# An async request replays with the flags that decide its cost and landing (RWF_DSYNC,
# RWF_SYNC, RWF_APPEND: capture.async_flags), and without the others: RWF_NOWAIT reads of
# files the replay's page cache does not hold (--cold) failed EAGAIN with no I/O, and an
# RWF_ATOMIC write (or a bit this kernel does not know) failed EOPNOTSUPP, where the original
# read and wrote. Here 4 io_uring reads with RWF_NOWAIT (8) and a write with RWF_ATOMIC
# (0x40), replayed --cold: every outcome as recorded.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 1 openat path=/d/f flags=O_RDWR ret=3"
	for i in 1 2 3 4; do
		req="fd=3 path=/d/f ctx=9 subop=22 len=262144 aux=$i off=$((i * 262144)) flags=8"
		echo "100 100 $((i * 10)) $((i * 10)) uring_submit $req ret=1"
		echo "100 100 $((i * 10)) $((i * 10 + 5)) uring_complete $req ret=262144"
	done
	req="fd=3 path=/d/f ctx=9 subop=23 len=4096 aux=9 off=0 flags=0x40"
	echo "100 100 100 101 uring_submit $req ret=1"
	echo "100 100 100 105 uring_complete $req ret=4096"
	echo "100 100 200 201 close fd=3 ret=0"
} | mk t
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap --cold -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	grep -A6 "outcomes differing" "$T/out"
	fail "RWF_NOWAIT or RWF_ATOMIC passed on to the replay's requests"
}
echo PASS
