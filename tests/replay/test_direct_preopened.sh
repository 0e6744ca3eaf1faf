#!/bin/bash
# Files open before the capture with O_DIRECT, O_DSYNC or O_SYNC (the recorder names them in
# the head meta capture.fd_flags) are opened with those flags when the replay first uses
# their fd: InnoDB opens its tablespaces O_DIRECT at start, long before a capture, and
# without the flag their replayed reads came from the page cache (137 us -> 3 us on the same
# disk). Where the target rejects O_DIRECT (ramfs), the --direct policy applies as to opens.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || exit 77

mk t <<'SPEC'
meta capture.fd_flags 100:5:40000 100:6:10000 100:7:777777777777777777777777 bad 999:5:40000
100 100 100 110 pread64 fd=5 path=/d/a off=4096 len=4096 ret=4096
100 100 200 210 pwrite64 fd=6 path=/d/b off=0 len=512 ret=512
100 100 300 310 pread64 fd=8 path=/d/c off=0 len=512 ret=512
SPEC
strace -f -qq -e trace=openat,openat2 -o "$T/st" "$IOREEL" replay "$T/t.reel" --target "$T/tgt" \
	-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
grep -E "openat2?\(.*d/a\".*O_DIRECT" "$T/st" >/dev/null || {
	grep "/d/" "$T/st"
	fail "fd 5 (O_DIRECT before the capture) not opened O_DIRECT"
}
grep -E "openat2?\(.*d/b\".*O_DSYNC" "$T/st" >/dev/null || fail "fd 6 not opened O_DSYNC"
grep -E "openat2?\(.*d/c\".*(O_DIRECT|O_DSYNC)" "$T/st" >/dev/null &&
	fail "fd 8 (no flags in the meta) opened with flags it did not have"

# ramfs rejects O_DIRECT: dropped and said so (default), or the fd fails (--direct keep)
[ "$(id -u)" = 0 ] || { echo PASS; exit 0; }
mkdir -p "$T/ram"
mount -t ramfs ramfs "$T/ram" 2>/dev/null || { echo PASS; exit 0; }
trap 'umount "$T/ram"; rm -rf "$T"' EXIT
"$IOREEL" replay "$T/t.reel" --target "$T/ram/tgt" -o "$T/r2.reel" >"$T/out" 2>&1 ||
	fail "replay on ramfs: $(cat "$T/out")"
grep -q "O_DIRECT rejected by the target and dropped on 1 opens" "$T/out" || {
	cat "$T/out"
	fail "drop not reported"
}
grep -q "outcomes differing from the original: 0" "$T/out" || fail "ops failed with drop"
"$IOREEL" replay "$T/t.reel" --target "$T/ram/tgt" --direct keep --fresh -o "$T/r3.reel" \
	>"$T/out" 2>&1 || fail "replay keep: $(cat "$T/out")"
grep -q "O_DIRECT rejected by the target on 1 opens (--direct keep)" "$T/out" ||
	fail "keep not reported: $(cat "$T/out")"
echo PASS
