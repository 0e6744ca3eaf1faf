#!/bin/bash
# A truncate that makes the file longer sets its length as a cut does: run after a later
# lengthening by another thread, it cuts that away. So a later op of another thread that makes
# the file longer waits for it, as for any cut. Kyoto Cabinet's tree database (kctreetest
# order -th 4): the main thread ftruncates its new file to 399616 and 602112 bytes, a worker
# thread later to 905216 and 1049088 and writes pages up to 1.9 MB; as fast as possible the
# main thread's ftruncate ran last and cut the file back, and its 24 reads of pages beyond
# 602112 came out empty.
source "$(dirname "$0")/lib.sh"

{
	echo "1 1 0 1 openat path=/r/db flags=O_RDWR|O_CREAT mode=0644 ret=3"
	echo "1 1 2 3 openat path=/r/log flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=4"
	t=10
	# the first thread is busy (syncs take a while) as the dispatcher reaches the second's ops
	for i in $(seq 0 19); do
		echo "1 1 $t $((t + 1)) pwrite64 fd=4 path=/r/log off=$((i * 4096)) len=4096 ret=4096"
		echo "1 1 $((t + 2)) $((t + 3)) fsync fd=4 path=/r/log ret=0"
		t=$((t + 4))
	done
	echo "1 1 $t $((t + 1)) ftruncate fd=3 path=/r/db len=399616 ret=0"
	echo "1 1 $((t + 2)) $((t + 3)) ftruncate fd=3 path=/r/db len=602112 ret=0"
	echo "1 2 $((t + 10)) $((t + 11)) ftruncate fd=3 path=/r/db len=1049088 ret=0"
	echo "1 2 $((t + 12)) $((t + 13)) pwrite64 fd=3 path=/r/db off=1049088 len=3328 ret=3328"
	# the first thread goes on after the second's ops (else one worker replays both in turn)
	echo "1 1 $((t + 40)) $((t + 41)) pread64 fd=3 path=/r/db off=1049088 len=3328 ret=3328"
	echo "1 1 $((t + 42)) $((t + 43)) close fd=3 path=/r/db ret=0"
} | mk t
for mode in afap think; do
	replay_as_traced $mode "a lengthening truncate cut another thread's later lengthening"
	check_size "$T/tgt/r/db" 1052416 "db, timing $mode"
done
echo PASS
