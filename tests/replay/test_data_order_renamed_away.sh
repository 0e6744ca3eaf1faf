#!/bin/bash
# Data order through a file renamed away: process 100 creates a file and appends 500 blocks
# to it, process 200 opens it, process 300 renames it to another name, then process 200
# reads every block through its fd, its reads carrying no path. The fd is on the file the
# rename moved (replay_deps.c, path__moved): its reads wait for the writes kept under the new
# name. Counted by the name they were opened by, they waited for nothing (stress seed 5422:
# an aio read through an fd whose file had been renamed came out empty). The name made again
# at the end starts afresh.
source "$(dirname "$0")/lib.sh"

N=500
{
	echo "100 100 0 10 openat path=/d/f flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3"
	echo "200 200 20 30 openat path=/d/f flags=O_RDONLY ret=3"
	for i in $(seq 0 $((N - 1))); do
		t=$((100 + 10 * i))
		echo "100 100 $t $((t + 2)) write fd=3 path=/d/f off=$((i * 4096)) len=4096 ret=4096"
	done
	t=$((100 + 10 * N))
	echo "300 300 $t $((t + 1)) rename path=/d/f path2=/d/g ret=0"
	for i in $(seq 0 $((N - 1))); do
		t=$((110 + 10 * N + 2 * i))
		echo "200 200 $t $((t + 1)) pread64 fd=3 off=$((i * 4096)) len=4096 ret=4096"
	done
	t=$((200 + 12 * N))
	echo "100 100 $t $t close fd=3 ret=0"
	echo "200 200 $((t + 1)) $((t + 1)) close fd=3 ret=0"
	echo "300 300 $((t + 2)) $((t + 3)) openat path=/d/f flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
	echo "300 300 $((t + 4)) $((t + 5)) pwrite64 fd=3 path=/d/f off=0 len=100 ret=100"
	echo "300 300 $((t + 6)) $((t + 7)) pread64 fd=3 path=/d/f off=0 len=4096 ret=100"
	echo "300 300 $((t + 8)) $((t + 9)) close fd=3 ret=0"
} >"$T/spec"
mk t <"$T/spec"
for timing in afap think original; do
	for i in 1 2 3; do
		replay_as_traced $timing "a read through an fd whose file was renamed away overtook the write"
	done
done
check_size "$T/tgt/d/f" 100 "d/f, made again"
echo PASS
