#!/bin/bash
# Cross-thread order holds even as fast as possible: an fd opened by one thread before
# another thread uses it, a close after the other threads' last uses, a rename before
# another thread opens the new name, a mkdir before another thread creates a file in the new
# directory. Without the dependencies these ops would fail
# (unknown fd, EBADF, ENOENT): the test asserts none does, in every timing mode.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	# thread 101 reads fd 3 many times; thread 100 closes it after the last of those reads
	for i in $(seq 0 999); do
		echo "100 101 $((20 + i)) $((20 + i)) pread64 fd=3 off=$(((i % 16) * 4096)) len=4096 ret=4096"
	done
	echo "100 100 1100 1110 close fd=3 ret=0"
	# thread 100 is busy; then opens fd 4, which thread 102 reads right after
	echo "100 100 1200 1210 openat path=/d/c flags=O_RDONLY ret=5"
	for i in $(seq 0 999); do
		echo "100 100 $((1300 + i)) $((1300 + i)) pread64 fd=5 off=0 len=4096 ret=4096"
	done
	echo "100 100 2400 2410 openat path=/d/b flags=O_RDONLY ret=4"
	echo "100 102 2420 2430 pread64 fd=4 off=0 len=4096 ret=4096"
	# thread 103 writes a temp file and renames it; thread 104 opens the new name
	for i in $(seq 0 299); do
		echo "100 103 $((2500 + i)) $((2500 + i)) stat path=/d/a ret=0"
	done
	echo "100 103 2900 2910 openat path=/d/tmp flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=6"
	echo "100 103 2920 2930 pwrite64 fd=6 off=0 len=100 ret=100"
	echo "100 103 2940 2950 close fd=6 ret=0"
	echo "100 103 2960 2970 rename path=/d/tmp path2=/d/final ret=0"
	echo "100 104 2980 2990 openat path=/d/final flags=O_RDONLY ret=7"
	echo "100 104 3000 3010 pread64 fd=7 off=0 len=100 ret=100"
	echo "100 104 3020 3030 close fd=7 ret=0"
	echo "100 102 3040 3050 close fd=4 ret=0"
	# thread 105 makes a directory after some work; thread 106 creates a file in it
	for i in $(seq 0 499); do
		echo "100 105 $((3100 + i)) $((3100 + i)) stat path=/d/a ret=0"
	done
	echo "100 105 3700 3710 mkdir path=/d/newdir mode=0755 ret=0"
	echo "100 106 3720 3730 openat path=/d/newdir/f flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=8"
	echo "100 106 3740 3750 close fd=8 ret=0"
} | mk t
for mode in afap think original; do
	"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $mode -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay $mode: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		cat "$T/out"
		fail "timing $mode: cross-thread order broken"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
done
echo PASS
