#!/bin/bash
# io_uring requests other than reads, writes and syncs. An OPENAT request was left out as a
# non-file op (its SQE fd, which the kernel does not read for it, was taken for its file),
# so the fd it returned had no path in the ops after it, and CLOSE, STATX, RENAMEAT, UNLINKAT,
# MKDIRAT... were dropped or taken likewise, with nothing said (capture.lost_items 0). Now an
# OPENAT, OPENAT2 or CLOSE request is recorded as the syscall would be (an openat or close
# record from its submission to its completion, its fd in the fd table), and the file system
# ops not recorded are counted by opcode (meta capture.uring_unrecorded and
# capture.uring_unrecorded_ops, record's summary, info).
source "$(dirname "$0")/lib.sh"
URING=$3
A=$dir/app
mkdir "$A" || exit 1
"$URING" ops "$A"
case $? in
0) ;;
2) echo "SKIP: no io_uring here"; exit 77 ;;
*) echo "SKIP: this kernel's io_uring lacks OPENAT, CLOSE, STATX, MKDIRAT, RENAMEAT or UNLINKAT"; exit 77 ;;
esac
rm -rf "${A:?}"/*
"$IOREEL" record -o "$dir/t.reel" -- "$URING" ops "$A" 2> "$dir/rec.err" ||
	{ echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
open=$(grep -E "^op=openat .* kind=reg fd=-100 .* path=$A/viauring .* mode=0644 .* ret=[0-9]+ " \
	"$dir/ops.txt")
fd=$(echo "$open" | sed -n 's/.* ret=\([0-9]*\) .*/\1/p')
[ -n "$fd" ] || { echo "FAIL: no openat record of the OPENAT request:"; grep uring "$dir/ops.txt"; exit 1; }
for op in "uring_submit .* fd=$fd .* path=$A/viauring .* len=1000 " \
	"uring_complete .* fd=$fd .* path=$A/viauring .* len=1000 ret=1000 " \
	"pwrite64 .* fd=$fd .* path=$A/viauring .* offset=2000 len=10 ret=10 " \
	"close .* kind=reg fd=$fd .* path=$A/viauring .* ret=0 "; do
	grep -Eq "^op=$op" "$dir/ops.txt" || { echo "FAIL: no op like '$op'"; fail=1; }
done
# the close is a close record, not a request the replay cannot make
grep -Eq "^op=uring_(submit|complete) .* subop=(18|19|21|35|36|37) " "$dir/ops.txt" &&
	{ echo "FAIL: open, close or fs requests recorded as requests:"; grep "^op=uring" "$dir/ops.txt"; fail=1; }
grep -q "^meta capture.uring_unrecorded=4$" "$dir/ops.txt" &&
	grep -q "^meta capture.uring_unrecorded_ops=statx 1, renameat 1, unlinkat 1, mkdirat 1$" \
		"$dir/ops.txt" ||
	{ echo "FAIL: the requests not recorded are not counted:"; grep "meta capture" "$dir/ops.txt"; fail=1; }
grep -q "^  4 io_uring requests of file system ops the capture does not record (statx 1, renameat 1, unlinkat 1, mkdirat 1)" \
	"$dir/rec.err" || { echo "FAIL: record's summary does not say so:"; cat "$dir/rec.err"; fail=1; }
"$IOREEL" info "$dir/t.reel" | grep -Eq "^ *capture.uring_unrecorded +4$" ||
	{ echo "FAIL: info does not show capture.uring_unrecorded 4"; fail=1; }

# the open and the close replay as syscalls, the requests between them on the file opened
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" > "$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
grep -q "outcomes differing from the original: 0$" "$dir/out" &&
	grep -q "ops not replayed: 0$" "$dir/out" ||
	{ echo "FAIL: the replay differs:"; cat "$dir/out"; fail=1; }
size=$(stat -c %s "$dir/tgt$A/viauring" 2> /dev/null)
[ "$size" = 2010 ] || { echo "FAIL: the replay's viauring is '$size' bytes long, want 2010"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
