#!/bin/bash
# Data order through a file whose name is gone: process 100 creates a file and appends 500
# blocks to it, process 200 opens it, process 300 unlinks the name (or renames the file to
# another one), then process 200 reads every block through its fd, its reads carrying no path
# (a log read after its name was rotated away). The dispatcher keeps the writes that made the
# file longer under the name its fds were opened by; the unlink dropped them, the rename moved
# them to a name the fd does not go by, so the reads waited for nothing, and as fast as
# possible, free to run before the unlink or rename, they overtook the writes and came out
# short (stress seed 4152, unlinked: 1 read of 24164 bytes got 8704; seed 5422, renamed: an
# aio read came out empty). Now the unlinked file keeps its extent until the name is made
# again (rpath.unlinked), and the renamed one is followed to its new name (path__moved).
# The name made again at the end starts afresh.
source "$(dirname "$0")/lib.sh"

N=500
for gone in "unlink path=/d/f" "rename path=/d/f path2=/d/g"; do
	{
		echo "100 100 0 10 openat path=/d/f flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3"
		echo "200 200 20 30 openat path=/d/f flags=O_RDONLY ret=3"
		for i in $(seq 0 $((N - 1))); do
			t=$((100 + 10 * i))
			echo "100 100 $t $((t + 2)) write fd=3 path=/d/f off=$((i * 4096)) len=4096 ret=4096"
		done
		t=$((100 + 10 * N))
		echo "300 300 $t $((t + 1)) $gone ret=0"
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
			replay_as_traced $timing "${gone%% *}: a read through an fd on the file overtook the write"
		done
	done
	check_size "$T/tgt/d/f" 100 "d/f, made again after ${gone%% *}"
done
echo PASS
