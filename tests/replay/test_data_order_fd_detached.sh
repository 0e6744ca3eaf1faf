#!/bin/bash
# An op on an fd opened before its file's name was taken away (unlinked, renamed over) is on
# another file than the one by that name now: it must not move that file's extent. Tokyo
# Cabinet's optimize (tchmttest wicked) rebuilds the database into a temporary file, unlinks
# the database, renames the temporary over it, then ftruncates the old, unlinked file through
# its fd to its old length, longer than the new one. The dispatcher took that for a lengthening
# of the new file: the writes of other threads that later made the new file that long were
# not taken for lengthening ones, and reads of their bytes waited for none of them (1-2 reads
# out of 212,336 ops came out short, 36 or 0 bytes of 48, in every timing).
source "$(dirname "$0")/lib.sh"

{
	echo "1 1 0 1 openat path=/r/db flags=O_RDWR|O_CREAT mode=0644 ret=3"
	echo "1 1 2 3 pwrite64 fd=3 path=/r/db off=0 len=4096 ret=4096"
	echo "1 1 4 5 openat path=/r/tmp flags=O_RDWR|O_CREAT mode=0644 ret=4"
	echo "1 1 6 7 pwrite64 fd=4 path=/r/tmp off=0 len=8192 ret=8192"
	echo "1 1 8 9 close fd=4 path=/r/tmp ret=0"
	echo "1 1 10 11 unlink path=/r/db ret=0"
	echo "1 1 12 13 rename path=/r/tmp path2=/r/db ret=0"
	# the old database, through its fd, to its old length
	echo "1 1 14 15 ftruncate fd=3 path=/r/db len=65536 ret=0"
	echo "1 1 16 17 close fd=3 path=/r/db ret=0"
	echo "1 2 20 21 openat path=/r/db flags=O_RDWR ret=5"
	echo "1 2 22 23 openat path=/r/log flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=6"
	t=30
	# the second thread is busy (syncs take a while) as the first goes on to its read
	for i in $(seq 0 19); do
		echo "1 2 $t $((t + 1)) pwrite64 fd=6 path=/r/log off=$((i * 4096)) len=4096 ret=4096"
		echo "1 2 $((t + 2)) $((t + 3)) fsync fd=6 path=/r/log ret=0"
		t=$((t + 4))
	done
	echo "1 2 $t $((t + 1)) pwrite64 fd=5 path=/r/db off=8192 len=4096 ret=4096"
	echo "1 1 $((t + 10)) $((t + 11)) openat path=/r/db flags=O_RDONLY ret=3"
	echo "1 1 $((t + 12)) $((t + 13)) pread64 fd=3 path=/r/db off=8192 len=4096 ret=4096"
	echo "1 1 $((t + 14)) $((t + 15)) close fd=3 path=/r/db ret=0"
	echo "1 2 $((t + 40)) $((t + 41)) fsync fd=6 path=/r/log ret=0"
} | mk t
for mode in afap think; do
	replay_as_traced $mode "a read did not wait for the write that made the new file that long"
	check_size "$T/tgt/r/db" 12288 "db, timing $mode"
done
echo PASS
