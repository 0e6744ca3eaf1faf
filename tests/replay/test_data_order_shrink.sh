#!/bin/bash
# A cut (ftruncate, truncate, an O_TRUNC open) waits for the writes of other threads before it
# that reach beyond its new length: otherwise, as fast as possible, the cut ran first, the
# writes then made the file long again, and the replay left it 1 MiB where the trace leaves it
# 4 KiB. Thread 101 writes 1 MiB in 4096 writes; thread 103 reads the last bytes written (so
# waits for them), then after 2000 other ops rewrites them (a write that does not make the
# file longer); then thread 102, last in the trace, cuts the file to 4 KiB. The file must end
# 4 KiB long.
source "$(dirname "$0")/lib.sh"

N=4096
B=256
for cut in "ftruncate fd=3 path=/d/f len=4096 ret=0" \
	"truncate path=/d/f len=4096 ret=0" \
	"openat path=/d/f flags=O_WRONLY|O_TRUNC ret=4"; do
	{
		# 102 from the start: its own worker, not 103's once that one is done
		echo "100 102 0 0 stat path=/y ret=-ENOENT"
		echo "100 101 0 1 openat path=/d/f flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
		for i in $(seq 0 $((N - 1))); do
			echo "100 101 $((2 + i)) $((2 + i)) pwrite64 fd=3 path=/d/f off=$((i * B)) len=$B ret=$B"
		done
		echo "100 103 5000 5001 pread64 fd=3 path=/d/f off=$(((N - 1) * B)) len=$B ret=$B"
		for k in $(seq 1 2000); do
			echo "100 103 $((5001 + k)) $((5001 + k)) stat path=/x ret=-ENOENT"
		done
		echo "100 103 8000 8001 pwrite64 fd=3 path=/d/f off=$(((N - 1) * B)) len=$B ret=$B"
		echo "100 102 8100 8101 $cut"
		case $cut in
		openat*)
			echo "100 102 8102 8103 pwrite64 fd=4 path=/d/f off=0 len=4096 ret=4096"
			echo "100 102 8104 8105 close fd=4 ret=0"
			;;
		esac
		echo "100 101 8200 8201 close fd=3 ret=0"
	} | mk t
	for mode in afap think; do
		replay_as_traced $mode "${cut%% *}: an outcome differs"
		check_size "$T/tgt/d/f" 4096 "timing $mode, ${cut%% *} (a write ran after the cut)"
	done
done
echo PASS
