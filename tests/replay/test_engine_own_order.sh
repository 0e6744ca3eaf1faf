#!/bin/bash
# --engine io_uring|libaio: a thread's reads and writes go out as async requests, up to
# RUN_ASYNC_DEPTH in flight, but one that needs a request of the same thread still in flight
# waits for it. Every op must end as traced, each engine, on tmpfs and ext4, in every timing:
# - overlap: a thread writes a new file in 64 KiB pieces, each read back right after its
#   write. Without the wait the read raced its own write and came out short (or empty).
# - grow: a read waits for a write that makes the file longer past the read's start, though
#   their bytes do not overlap: the write leaves a hole below it that the read reads (zeros,
#   as long as asked). Berkeley DB's db_load writes a new page far out in its database file,
#   then reads a page of the hole below it: replayed through io_uring on ext4 the read went
#   before the write had made the file that long and came out empty (0 bytes for 4096).
source "$(dirname "$0")/lib.sh"

# trace CASE: 200 pairs of a write and a read of the same thread
trace() {
	echo "100 100 0 10 openat path=/d/new flags=O_RDWR|O_CREAT ret=3"
	t=100
	for i in $(seq 0 199); do
		if [ "$1" = overlap ]; then
			w="off=$((i * 65536)) len=65536 ret=65536" r=$w
		else
			w="off=$(((2 * i + 1) * 65536)) len=4096 ret=4096"
			r="off=$((2 * i * 65536)) len=4096 ret=4096"
		fi
		echo "100 100 $t $((t + 5)) pwrite64 fd=3 path=/d/new $w"
		echo "100 100 $((t + 6)) $((t + 9)) pread64 fd=3 path=/d/new $r"
		t=$((t + 10))
	done
	echo "100 100 $t $((t + 1)) close fd=3 ret=0"
}

for case in overlap grow; do
	trace $case | mk t
	for e in io_uring libaio; do
		for dir in /dev/shm /var/tmp; do
			for mode in afap think; do
				tgt=$(mktemp -d "$dir/ioreel-own-order.XXXXXX")
				"$IOREEL" replay "$T/t.reel" --target "$tgt" --engine $e --timing $mode \
					-o "$T/r.reel" >"$T/out" 2>&1 ||
					{ rm -rf "$tgt"; fail "$case: replay $e $mode: $(cat "$T/out")"; }
				rm -rf "$tgt"
				grep -q "outcomes differing from the original: 0" "$T/out" || {
					grep -A6 "outcomes differing" "$T/out"
					fail "$case: engine $e on $dir, timing $mode: a read overtook its own thread's write"
				}
				check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
			done
		done
	done
done
echo PASS
