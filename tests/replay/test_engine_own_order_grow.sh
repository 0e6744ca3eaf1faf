#!/bin/bash
# --engine io_uring|libaio: a read waits for a request of its own thread still in flight that
# makes the file longer past the read's start, though their bytes do not overlap: the write
# leaves a hole below it that the read reads (zeros, as long as asked). Berkeley DB's db_load
# writes a new page far out in its database file, then reads a page of the hole below it:
# replayed through io_uring on ext4 the read went before the write had made the file that
# long and came out empty (0 bytes for the original's 4096). Every op must end as traced.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 10 openat path=/d/new flags=O_RDWR|O_CREAT ret=3"
	t=100
	for i in $(seq 0 199); do
		echo "100 100 $t $((t + 5)) pwrite64 fd=3 path=/d/new off=$(((2 * i + 1) * 65536)) len=4096 ret=4096"
		echo "100 100 $((t + 6)) $((t + 9)) pread64 fd=3 path=/d/new off=$((2 * i * 65536)) len=4096 ret=4096"
		t=$((t + 10))
	done
	echo "100 100 $t $((t + 1)) close fd=3 ret=0"
} | mk t
for e in io_uring libaio; do
	for dir in /dev/shm /var/tmp; do
		for mode in afap think; do
			tgt=$(mktemp -d "$dir/ioreel-own-grow.XXXXXX")
			"$IOREEL" replay "$T/t.reel" --target "$tgt" --engine $e --timing $mode \
				-o "$T/r.reel" >"$T/out" 2>&1 || { rm -rf "$tgt"; fail "replay $e $mode: $(cat "$T/out")"; }
			rm -rf "$tgt"
			grep -q "outcomes differing from the original: 0" "$T/out" || {
				grep -A6 "outcomes differing" "$T/out"
				fail "engine $e on $dir, timing $mode: a read of a hole overtook the write that made it"
			}
			check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
		done
	done
done
echo PASS
