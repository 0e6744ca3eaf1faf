#!/bin/bash
# Data order through an fd whose file was renamed onto another name: process 100 makes
# /d/f.newlock, writes its header, renames it to /d/f and goes on appending through its fd,
# whose ops carry the new name (FORMAT.md: writers follow renames of open files); process 200
# then opens /d/f and reads every block, the last first (dovecot's index log: made as .newlock, renamed into
# place, appended to; the next lda or doveadm reads it all). The rename onto /d/f took the
# name's file away (gone_seq) after the fd was opened, so the dispatcher took the fd for one
# on the file replaced and left its writes out of /d/f's extent: the reads waited for none of
# them and came out short (dovecot-lda and doveadm on ext4, every timing: 1-7 preads of
# dovecot.index.log, 40 bytes of 344). Now the fd's file is followed from the name it was
# opened by through the renames (path__moved), to /d/f.
source "$(dirname "$0")/lib.sh"

N=500
{
	echo "100 100 0 10 openat path=/d/f.newlock flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
	echo "100 100 20 30 write fd=3 path=/d/f.newlock off=0 len=40 ret=40"
	echo "100 100 40 50 rename path=/d/f.newlock path2=/d/f ret=0"
	for i in $(seq 0 $((N - 1))); do
		t=$((100 + 10 * i))
		echo "100 100 $t $((t + 2)) write fd=3 path=/d/f off=$((40 + i * 4096)) len=4096 ret=4096"
	done
	t=$((100 + 10 * N))
	echo "200 200 $((t + 10)) $((t + 11)) openat path=/d/f flags=O_RDONLY ret=3"
	for i in $(seq 0 $((N - 1))); do
		t=$((120 + 10 * N + 2 * i))
		echo "200 200 $t $((t + 1)) pread64 fd=3 path=/d/f off=$((40 + (N - 1 - i) * 4096)) len=4096 ret=4096"
	done
	t=$((200 + 12 * N))
	echo "200 200 $t $((t + 1)) close fd=3 path=/d/f ret=0"
	# the writer closes last: its worker takes on no other thread before the reader's ops
	echo "100 100 $((t + 2)) $((t + 3)) close fd=3 path=/d/f ret=0"
} >"$T/spec"
mk t <"$T/spec"
for timing in afap think original; do
	for i in 1 2 3; do
		replay_as_traced $timing "a read overtook the write through the fd renamed onto its name"
	done
done
check_size "$T/tgt/d/f" $((40 + N * 4096)) "d/f"
echo PASS
