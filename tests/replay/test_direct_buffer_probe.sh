#!/bin/bash
# An O_DIRECT read or write that failed EINVAL at an aligned offset and length failed for its
# buffer's address (the trace has no addresses): it replays from a misaligned buffer, so
# that it fails again. QEMU probes a raw image's memory alignment so at open (a 4 KiB pread
# at offset 0 from buf + 1, -EINVAL, then from buf + 512); each replay of qemu-img said
# "succeeded where the original failed" and read 4 KiB from the disk the original never
# read. A misaligned length fails by itself and is left alone, as are buffered fds.
source "$(dirname "$0")/lib.sh"
probe() { # [ENGINE [TIMING]]
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" ${1:+--engine $1} \
		${2:+--timing $2} -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay ${1:-sync}: $(cat "$T/out")"
	grep -q "O_DIRECT rejected" "$T/out" && exit 77 # the target has no O_DIRECT
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		grep -A8 "outcomes differing" "$T/out"
		fail "engine ${1:-sync}: an O_DIRECT probe with a misaligned buffer did not fail"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
}

mk t <<'SPEC'
1 1 0 10 openat path=/d/img flags=O_RDWR|O_DIRECT ret=3
1 1 20 30 pread64 fd=3 off=0 len=1 ret=-EINVAL
1 1 40 50 pread64 fd=3 off=0 len=512 ret=512
1 1 60 70 pread64 fd=3 off=0 len=4096 ret=-EINVAL
1 1 80 90 pread64 fd=3 off=0 len=4096 ret=4096
1 1 100 110 pwrite64 fd=3 off=8192 len=4096 ret=-EINVAL
1 1 120 130 pwrite64 fd=3 off=8192 len=4096 ret=4096
1 1 140 150 preadv fd=3 off=0 len=4096 ret=-EINVAL
1 1 160 170 openat path=/d/plain flags=O_RDWR ret=4
1 1 180 190 pread64 fd=4 off=0 len=4096 ret=4096
1 1 200 210 close fd=4 ret=0
1 1 220 230 close fd=3 ret=0
SPEC
probe
probe io_uring
probe libaio
probe sync afap # as fast as possible, plain reads and writes take a lane of their own
echo PASS
