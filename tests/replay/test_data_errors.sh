#!/bin/bash
# Data ops that failed in the original fail the same way in the replay, each engine: a read
# of a directory (EISDIR), a write through a read-only fd and a read through a write-only one
# (EBADF), a vectored read of a directory; and the rest succeed as they did.
# - The worker issues its timed data syscalls with the syscall instruction itself
#   (replay/replay_sys.h), which returns -errno rather than setting errno: a wrong sign or a
#   stale errno shows here as an outcome that differs, or as a wrong ret in the result.
# - Through libaio, a read of a directory failed EINVAL where the thread's read had failed
#   EISDIR (2 outcomes differing): a data op on a directory fd goes as the syscall.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 openat path=/d flags=O_RDONLY|O_DIRECTORY ret=3 kind=dir
1 1 2 3 openat path=/d/f flags=O_RDONLY ret=4
1 1 3 4 openat path=/d/g flags=O_WRONLY ret=5
1 1 4 5 pread64 fd=3 off=0 len=4096 ret=-EISDIR kind=dir
1 1 6 7 readv fd=3 off=0 len=512 ret=-EISDIR kind=dir
1 1 8 9 pwrite64 fd=4 off=0 len=4096 ret=-EBADF
1 1 10 11 pread64 fd=5 off=0 len=4096 ret=-EBADF
1 1 12 13 pread64 fd=4 off=0 len=4096 ret=4096
1 1 14 15 fsync fd=4 ret=0
1 1 16 17 fdatasync fd=4 ret=0
1 1 18 19 close fd=5 ret=0
1 1 20 21 close fd=4 ret=0
1 1 22 23 close fd=3 ret=0
SPEC
for eng in sync io_uring libaio; do
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --engine "$eng" \
		-o "$T/r.reel" >"$T/out" 2>&1 || fail "$eng: status $?: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" ||
		fail "$eng: outcomes differ: $(grep -A8 'outcomes differing' "$T/out")"
	csv=$("$IOREEL" dump "$T/r.reel" --format csv)
	# op and ret of each data op, in trace order (csv: op is field 1, ret field 10)
	got=$(awk -F, '$1 ~ /^(pread64|readv|pwrite64|fsync|fdatasync)$/ { printf "%s=%s ", $1, $10 }' <<<"$csv")
	want="pread64=-21 readv=-21 pwrite64=-9 pread64=-9 pread64=4096 fsync=0 fdatasync=0 "
	[ "$got" = "$want" ] || fail "$eng: results '$got', want '$want'"
done
echo PASS
