#!/bin/bash
# The async engines keep each in-flight slot's buffer at the largest request it held: a
# smaller request in between does not make the next larger one allocate (and fill) a new
# buffer. borgbackup's trace (8-16 MiB reads between small ones) replayed afap with
# --engine io_uring in 28 s, 4x its recorded 7 s, most of it filling new buffers; sync 1.4 s.
# Here 1500 preads, every third 1 MiB, through io_uring: at most one 1 MiB buffer per slot
# (64, 63 here), where each large one after a small one in its slot allocated one (499).
source "$(dirname "$0")/lib.sh"
[ -n "${COUNT_MEMALIGN:-}" ] && [ -f "$COUNT_MEMALIGN" ] || exit 77
# the shim comes before the sanitizer runtime in sanitizer builds
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0

{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	for i in $(seq 0 1499); do
		len=$((i % 3 ? 4096 : 1048576))
		echo "100 100 $((100 + i * 10)) $((105 + i * 10)) pread64 fd=3 off=0 len=$len ret=$len"
	done
	echo "100 100 20000 20010 close fd=3 ret=0"
} | mk t
# the rest of the replay (preparing the file set, the sync engine's one buffer) is the base
base=$(count_big_buffers sync)
n=$(count_big_buffers io_uring)
# (the slots now pass buffers on, so io_uring may make no more than the sync engine's one)
[ "$n" -ge 1 ] || fail "io_uring allocated no 1 MiB buffer ($n, sync $base): shim missed it"
[ $((n - base)) -le 64 ] ||
	fail "io_uring: $((n - base)) buffers of 1 MiB for 500 requests of 1 MiB (at most 64 expected)"
echo "1 MiB buffers: io_uring $n, sync $base"
