#!/bin/bash
# --engine io_uring|libaio, with a schedule (not staged): a worker whose queue runs empty while
# its write is still in flight must finish it before it sleeps, for the others may wait on it.
# Thread 101 writes 8 MiB with O_DIRECT (in flight for a while on a disk) and has nothing more
# to do for 0.1 s; thread 102 waits for that write (a read of the bytes it added, then a close
# of the fd it wrote through) and has 10000 ops after it, more than its queue holds. The
# worker of 101 slept with the write in flight, unretired: 102 waited for it for good, the
# dispatcher for room in 102's queue, and the replay hung (deaf to SIGTERM).
source "$(dirname "$0")/lib.sh"

{
	echo "100 101 0 1 openat path=/d/f flags=O_RDWR|O_CREAT|O_EXCL|O_DIRECT mode=0644 ret=3"
	echo "100 101 2 3 openat path=/d/p flags=O_RDWR|O_DIRECT ret=5"
	echo "100 102 5 6 openat path=/d/f flags=O_RDONLY ret=4"
	echo "100 101 10 15 pwrite64 fd=3 path=/d/f off=0 len=8388608 ret=8388608"
	echo "100 101 16 17 pwrite64 fd=5 path=/d/p off=0 len=8388608 ret=8388608"
	echo "100 102 20 21 pread64 fd=4 path=/d/f off=0 len=4096 ret=4096"
	echo "100 102 22 23 close fd=5 ret=0"
	for i in $(seq 1 10000); do
		echo "100 102 $((30 + i)) $((30 + i)) pread64 fd=4 path=/d/f off=4096 len=4096 ret=4096"
	done
	echo "100 101 100000 100001 access path=/d/x ret=-ENOENT"
	echo "100 102 100002 100003 close fd=4 ret=0"
	# /d/p was there: prepared as large as this read
	echo "100 103 100006 100007 openat path=/d/p flags=O_RDONLY ret=6"
	echo "100 103 100008 100009 pread64 fd=6 path=/d/p off=0 len=8388608 ret=8388608"
} | mk t
for e in io_uring libaio; do
	for mode in original think; do
		rm -rf "$T/tgt"
		timeout -s KILL 30 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --engine $e \
			--timing $mode -o "$T/r.reel" >"$T/out" 2>&1 ||
			fail "engine $e, timing $mode (rc $?, 137: hung): $(tail -3 "$T/out")"
		check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
		"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
w = next(o for o in ops if o["op"] == "pwrite64" and o["path"] == "/d/f")
r = next(o for o in ops if o["op"] == "pread64" and o["tid"] == 102)
sys.exit(0 if r["start_ns"] >= w["end_ns"] and r["ret"] == 4096 else 1)' ||
			fail "engine $e, timing $mode: the read did not wait for the write"
	done
done
echo PASS
