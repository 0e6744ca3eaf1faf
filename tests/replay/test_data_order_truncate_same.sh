#!/bin/bash
# A truncate to the length the file already had changes nothing in the trace, but run after
# a later lengthening by another thread it cuts: a later op of another thread that makes the
# file longer waits for it, as for any cut. The Go linker's threads: one fallocates and
# ftruncates its output to 3903120 bytes and goes on reading packages, another later
# fallocates and ftruncates it to 4109732; as fast as possible the second ran first, the
# first then cut the file back, and go build's reads of its last 206 KB came out short.
source "$(dirname "$0")/lib.sh"

{
	echo "1 1 0 1 openat path=/r/a.out flags=O_RDWR|O_CREAT|O_TRUNC mode=0755 ret=3"
	echo "1 1 2 3 openat path=/r/log flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=4"
	t=10
	# the first thread is busy (syncs take a while) as the dispatcher reaches the second's ops
	for i in $(seq 0 19); do
		echo "1 1 $t $((t + 1)) pwrite64 fd=4 path=/r/log off=$((i * 4096)) len=4096 ret=4096"
		echo "1 1 $((t + 2)) $((t + 3)) fsync fd=4 path=/r/log ret=0"
		t=$((t + 4))
	done
	echo "1 1 $t $((t + 1)) fallocate fd=3 path=/r/a.out off=0 len=3903120 ret=0"
	echo "1 1 $((t + 2)) $((t + 3)) ftruncate fd=3 path=/r/a.out len=3903120 ret=0"
	echo "1 2 $((t + 10)) $((t + 11)) fallocate fd=3 path=/r/a.out off=0 len=4109732 ret=0"
	echo "1 2 $((t + 12)) $((t + 13)) ftruncate fd=3 path=/r/a.out len=4109732 ret=0"
	echo "1 2 $((t + 14)) $((t + 15)) close fd=3 path=/r/a.out ret=0"
	echo "2 3 $((t + 20)) $((t + 21)) openat path=/r/a.out flags=O_RDONLY ret=3"
	echo "2 3 $((t + 22)) $((t + 23)) pread64 fd=3 path=/r/a.out off=4000000 len=100000 ret=100000"
	echo "2 3 $((t + 24)) $((t + 25)) close fd=3 path=/r/a.out ret=0"
	# the first thread goes on after the second's ops (else one worker replays both in turn)
	echo "1 1 $((t + 40)) $((t + 41)) fsync fd=4 path=/r/log ret=0"
} | mk t
for mode in afap think; do
	replay_as_traced $mode "a truncate to the file's length cut another thread's later lengthening"
	check_size "$T/tgt/r/a.out" 4109732 "a.out, timing $mode"
done
echo PASS
