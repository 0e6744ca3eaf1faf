#!/bin/bash
# fallocate(FALLOC_FL_INSERT_RANGE) makes a file longer, as a write beyond its end does: a read
# of another thread after it of the bytes beyond the old end waits for it, and so does a cut;
# the insert itself waits for the writes of other threads before it that reached beyond its
# offset. Otherwise, as fast as possible, the read came out short, the cut ran first and
# left the file 1 MiB longer, the insert ran before the write it needs and failed (EINVAL:
# its offset beyond the end). And the file is prepared as long as it was before the insert
# (reads after it tell nothing of that length). /d/f was there before the capture, 4 KiB
# (as far as it was read); thread 101 inserts 1 MiB after 20000 other ops (or writes
# [4 KiB, 8 KiB)), which thread 102 reaches at once.
source "$(dirname "$0")/lib.sh"

M=1048576
probe="$T/probe"
head -c 16384 /dev/zero >"$probe" && fallocate -i -o 0 -l 4096 "$probe" 2>/dev/null || {
	echo "SKIP: fallocate INSERT_RANGE not supported under $T"
	exit 77
}

insert="fallocate fd=3 path=/d/f mode=0x20 off=0 len=$M ret=0"
for c in read cut write; do
	case $c in
	read) # 102 reads the bytes the insert moved up
		slow="100 101 20002 20003 ${insert/fd=3/fd=4}"
		then="100 102 20010 20011 pread64 fd=3 path=/d/f off=$M len=4096 ret=4096"
		size=$((M + 4096)) ;;
	cut) # 102 cuts what the insert added
		slow="100 101 20002 20003 ${insert/fd=3/fd=4}"
		then="100 102 20010 20011 truncate path=/d/f len=4096 ret=0"
		size=4096 ;;
	write) # 102 inserts at 4 KiB, where 101's write made the file reach
		slow="100 101 20002 20003 pwrite64 fd=4 path=/d/f off=4096 len=4096 ret=4096"
		then="100 102 20010 20011 ${insert/off=0/off=4096}"
		size=$((M + 8192)) ;;
	esac
	{
		echo "100 101 0 0 openat path=/d/f flags=O_RDWR ret=4"
		echo "100 102 0 1 openat path=/d/f flags=O_RDWR ret=3"
		echo "100 102 2 3 pread64 fd=3 path=/d/f off=0 len=8192 ret=4096"
		seq 2 20001 | sed 's/.*/100 101 & & stat path=\/x ret=-ENOENT/'
		echo "$slow"
		echo "$then"
		echo "100 102 20100 20100 close fd=3 ret=0"
		echo "100 101 20100 20100 close fd=4 ret=0"
	} | mk t
	for mode in afap think; do
		replay_as_traced $mode "$c: an op ran before the insert (or the insert before the write)"
		check_size "$T/tgt/d/f" $size "timing $mode, $c"
	done
done
echo PASS
