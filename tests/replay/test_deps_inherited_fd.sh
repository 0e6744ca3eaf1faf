#!/bin/bash
# The first op of a process on an fd it got from its parent across a fork (the trace records no
# forks) opens the fd's file by the path the op carries: it waits for the op of another thread
# that made that name. sort -S 1M --compress-program=gzip makes each temp file O_EXCL in the
# parent and forks a gzip that writes it as its stdout (dup2 of the inherited fd, close,
# writes); as fast as possible the child's dup2 ran before the parent's open had made the file:
# "fd opened before the capture: cannot open its path", 570 ops not replayed, and the reads of
# those files by the decompressors came out short (22 outcomes differing with --timing think).
# Here process 100 is busy with 20000 stats before it makes /t/tmp; its child 101 dups the fd
# to 1, writes 1000 bytes and exits; then 100 reads them back and removes the file.
source "$(dirname "$0")/lib.sh"

{
	for i in $(seq 0 19999); do
		echo "100 100 $((i * 2)) $((i * 2 + 1)) stat path=/t/other ret=0"
	done
	echo "100 100 40000 40010 openat path=/t/tmp flags=O_RDWR|O_CREAT|O_EXCL mode=0600 ret=4"
	echo "101 101 40100 40110 dup2 fd=4 path=/t/tmp ret=1"
	echo "101 101 40120 40130 close fd=4 path=/t/tmp ret=0"
	echo "100 100 40200 40210 close fd=4 ret=0"
	echo "101 101 40300 40310 write fd=1 path=/t/tmp off=0 len=1000 ret=1000"
	echo "101 101 40400 40410 close fd=1 path=/t/tmp ret=0"
	echo "100 100 40500 40510 openat path=/t/tmp flags=O_RDONLY ret=3"
	echo "100 100 40600 40610 read fd=3 path=/t/tmp off=0 len=4096 ret=1000"
	echo "100 100 40700 40710 close fd=3 ret=0"
	echo "100 100 40800 40810 unlink path=/t/tmp ret=0"
} | mk t
for mode in afap think original; do
	replay_as_traced $mode "an inherited fd's file opened before another thread made it"
	grep -q "ops not replayed: 0" "$T/out" || { grep -A4 "ops not replayed" "$T/out"; fail "$mode: ops not replayed"; }
done
echo PASS
