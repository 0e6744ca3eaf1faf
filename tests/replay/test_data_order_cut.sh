#!/bin/bash
# A write that makes a file longer again after another thread cut it (ftruncate, an O_TRUNC
# open) waits for that cut: otherwise, as fast as possible, the write ran first, the cut then
# took its bytes away, and a third thread's read of them, which waits for the write, came out
# short. Thread 101 writes 8 KiB, thread 103 cuts the file to 0 after 1000 other ops, 101
# writes the 8 KiB again, and thread 102 reads them after 3000 other ops.
source "$(dirname "$0")/lib.sh"

for cut in "ftruncate fd=3 path=/d/f len=0 ret=0" \
	"openat path=/d/f flags=O_WRONLY|O_TRUNC ret=4"; do
	{
		echo "100 101 0 1 openat path=/d/f flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
		echo "100 101 2 3 pwrite64 fd=3 path=/d/f off=0 len=8192 ret=8192"
		for k in $(seq 1 1000); do
			echo "100 103 $((3 + k)) $((3 + k)) stat path=/x ret=-ENOENT"
		done
		echo "100 103 1100 1101 $cut"
		echo "100 101 1200 1201 pwrite64 fd=3 path=/d/f off=0 len=8192 ret=8192"
		for k in $(seq 1 3000); do
			echo "100 102 $((1300 + k)) $((1300 + k)) stat path=/x ret=-ENOENT"
		done
		echo "100 102 5000 5001 pread64 fd=3 path=/d/f off=0 len=8192 ret=8192"
		echo "100 101 6000 6001 close fd=3 ret=0"
	} | mk t
	for mode in afap think; do
		replay_as_traced $mode "${cut%% *}: the write ran before the cut"
	done
done
echo PASS
