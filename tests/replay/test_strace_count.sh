#!/bin/bash
# Independent check that a replay issues exactly the trace's ops: run the replay under
# strace and count the replayer's own syscalls of each kind on the target's files
# (every read replays as pread64, every write as pwrite64, opens as openat2).
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || exit 77
# LeakSanitizer cannot run under ptrace (sanitizer builds)
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0

{
	echo "100 100 0 10 openat path=/d/a flags=O_RDWR ret=3"
	echo "100 101 0 10 openat path=/d/b flags=O_RDONLY ret=4"
	for i in $(seq 0 29); do
		echo "100 100 $((100 + i * 10)) $((105 + i * 10)) pread64 fd=3 off=$((i * 4096)) len=4096 ret=4096"
		echo "100 101 $((100 + i * 10)) $((105 + i * 10)) read fd=4 off=$((i * 512)) len=512 ret=512"
	done
	for i in $(seq 0 9); do
		echo "100 100 $((500 + i * 10)) $((505 + i * 10)) pwrite64 fd=3 off=$((i * 100)) len=100 ret=100"
		echo "100 101 $((500 + i * 10)) $((505 + i * 10)) newfstatat path=/d/a ret=0"
	done
	echo "100 100 700 710 fsync fd=3 ret=0"
	echo "100 100 720 730 fdatasync fd=3 ret=0"
	echo "100 100 800 810 close fd=3 ret=0"
	echo "100 101 800 810 close fd=4 ret=0"
} | mk t
# first run prepares (its own writes would count); the second reuses the file set
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r1.reel" -q || fail "replay 1"
# as recorded, then as fast as possible (in segments read ahead: the same ops)
for timing in original afap; do
	strace -f -qq -y -o "$T/strace.log" \
		-e trace=pread64,pwrite64,fsync,fdatasync,openat2,close,newfstatat \
		"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $timing -o "$T/r2.reel" -q \
		2>"$T/err" || fail "replay 2 ($timing)"
	grep -q "reusing prepared file set" "$T/err" || fail "second run did not reuse the file set"
	count() { grep -E "$1" "$T/strace.log" | grep -c "$T/tgt/d/"; }
	[ "$(count '^[0-9]+ +pread64\(')" = 60 ] ||
		fail "$timing: pread64: $(count '^[0-9]+ +pread64\(') != 60"
	[ "$(count '^[0-9]+ +pwrite64\(')" = 10 ] ||
		fail "$timing: pwrite64: $(count '^[0-9]+ +pwrite64\(')"
	[ "$(count '^[0-9]+ +fsync\(')" = 1 ] || fail "$timing: fsync"
	[ "$(count '^[0-9]+ +fdatasync\(')" = 1 ] || fail "$timing: fdatasync"
	# opens of the two files (not the O_PATH parent lookups, not the manifest, not the
	# read-only O_NONBLOCK ones that ask how much of the file set is cached at the start:
	# replay_cache.c)
	opens=$(grep -E '^[0-9]+ +openat2\(' "$T/strace.log" | grep -v -e O_PATH -e O_NONBLOCK |
		grep -c -E '"d/(a|b)"')
	[ "$opens" = 2 ] || fail "$timing: openat2 of d/a, d/b: $opens != 2"
	stats=$(grep -E '^[0-9]+ +newfstatat\(' "$T/strace.log" | grep -c '"a"')
	[ "$stats" -ge 10 ] || fail "$timing: newfstatat of a: $stats < 10"
	check_same_ops "$T/t.reel" "$T/r2.reel"
done
echo PASS
