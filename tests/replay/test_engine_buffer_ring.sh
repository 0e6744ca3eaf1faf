#!/bin/bash
# The async engines' slots go round their ring whatever the depth; a slot takes the buffer
# of the slot retired before it, when large enough, rather than allocating and filling one
# of its own. dd's 64 sequential 1 MiB O_DIRECT writes, one in flight, replayed through
# libaio at 375 us of the worker's CPU per op (64 MiB of buffers made and filled) against
# 45 us with the sync engine, and fell 95 ms behind its schedule. Here 300 buffered 1 MiB
# preads through libaio, each complete within its io_submit (one in flight): one or two
# 1 MiB buffers beyond the sync replay's, where every slot made its own (64).
source "$(dirname "$0")/lib.sh"
[ -n "${COUNT_MEMALIGN:-}" ] && [ -f "$COUNT_MEMALIGN" ] || exit 77
# the shim comes before the sanitizer runtime in sanitizer builds
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0

{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	for i in $(seq 0 299); do
		echo "100 100 $((100 + i * 10)) $((105 + i * 10)) pread64 fd=3 off=$(((i % 4) * 1048576)) len=1048576 ret=1048576"
	done
	echo "100 100 20000 20010 close fd=3 ret=0"
} | mk t
base=$(count_big_buffers sync)
n=$(count_big_buffers libaio)
echo "1 MiB buffers: libaio $n, sync $base"
[ $((n - base)) -le 2 ] ||
	fail "libaio: $((n - base)) buffers of 1 MiB for 300 requests one at a time (1 or 2 expected)"
echo PASS
