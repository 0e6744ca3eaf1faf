#!/bin/bash
# A path op waits for what made, moved or removed any directory above it, not only its
# parent, and a rename of a directory waits for the ops below it before; getdents64 on a
# directory's fd comes before another thread's rmdir of it, and after it when it failed so.
# Thread 101 makes /r/a/b, then renames /r/a to /r/z; thread 103, after 2000 other ops,
# creates /r/a/b/g before that rename; thread 102 creates /r/z/b/f after it. Thread 104 lists
# /r/d (open, getdents64) after 2000 other ops, and again after 2000 more, which failed with
# ENOENT: thread 105 had removed /r/d in between. As fast as possible, without the order, the
# rename ran before 103's create and after 102's, and the rmdir before the first listing:
# each failed with ENOENT. Asserts no outcome differs, in every timing mode.
source "$(dirname "$0")/lib.sh"

{
	# 102 and 105 from the start: their own workers
	echo "100 102 0 0 stat path=/r ret=0"
	echo "100 105 0 0 stat path=/r ret=0"
	echo "100 101 1 1 mkdir path=/r/a mode=0755 ret=0"
	echo "100 101 2 2 mkdir path=/r/a/b mode=0755 ret=0"
	echo "100 101 3 3 mkdir path=/r/d mode=0755 ret=0"
	echo "100 104 4 4 openat path=/r/d flags=O_RDONLY|O_DIRECTORY ret=3 kind=dir"
	for k in $(seq 1 2000); do
		echo "100 103 $((10 + k)) $((10 + k)) stat path=/x ret=-ENOENT"
		echo "100 104 $((10 + k)) $((10 + k)) stat path=/y ret=-ENOENT"
	done
	echo "100 103 2100 2101 openat path=/r/a/b/g flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=4"
	echo "100 104 2100 2101 getdents64 fd=3 path=/r/d len=32768 ret=48 kind=dir"
	echo "100 101 2102 2103 rename path=/r/a path2=/r/z ret=0"
	echo "100 105 2102 2103 rmdir path=/r/d ret=0"
	echo "100 102 2104 2105 openat path=/r/z/b/f flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=5"
	for k in $(seq 1 2000); do
		echo "100 104 $((2200 + k)) $((2200 + k)) stat path=/y ret=-ENOENT"
	done
	echo "100 104 4300 4301 getdents64 fd=3 path=/r/d len=32768 ret=-ENOENT kind=dir"
	echo "100 104 4302 4302 close fd=3 ret=0 kind=dir"
	echo "100 103 4303 4303 close fd=4 ret=0"
	echo "100 102 4304 4304 close fd=5 ret=0"
} | mk t

for mode in afap think original; do
	replay_as_traced $mode "an op ran before what it needs above it"
	[ -f "$T/tgt/r/z/b/f" ] && [ -f "$T/tgt/r/z/b/g" ] || fail "timing $mode: /r/z/b/{f,g} missing"
done
echo PASS
