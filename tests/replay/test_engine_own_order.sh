#!/bin/bash
# --engine io_uring|libaio: a thread's reads and writes go out as async requests, up to
# RUN_ASYNC_DEPTH in flight, but one that touches bytes a request of the same thread still in
# flight writes (or reads) waits for it: a thread writes a new file in 64 KiB pieces, each
# read back right after its write. Without the wait the read raced its own write and came
# out short (or empty) on tmpfs and on ext4. Every op must end as traced, in every timing.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 10 openat path=/d/new flags=O_RDWR|O_CREAT ret=3"
	t=100
	for i in $(seq 0 199); do
		echo "100 100 $t $((t + 5)) pwrite64 fd=3 off=$((i * 65536)) len=65536 ret=65536"
		echo "100 100 $((t + 6)) $((t + 9)) pread64 fd=3 off=$((i * 65536)) len=65536 ret=65536"
		t=$((t + 10))
	done
	echo "100 100 $t $((t + 1)) close fd=3 ret=0"
} | mk t
for e in io_uring libaio; do
	for dir in /dev/shm /var/tmp; do
		for mode in afap think; do
			tgt=$(mktemp -d "$dir/ioreel-own-order.XXXXXX")
			"$IOREEL" replay "$T/t.reel" --target "$tgt" --engine $e --timing $mode \
				-o "$T/r.reel" >"$T/out" 2>&1 || { rm -rf "$tgt"; fail "replay $e $mode: $(cat "$T/out")"; }
			rm -rf "$tgt"
			grep -q "outcomes differing from the original: 0" "$T/out" || {
				grep -A6 "outcomes differing" "$T/out"
				fail "engine $e on $dir, timing $mode: a read overtook its own thread's write"
			}
			check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
		done
	done
done
echo PASS
