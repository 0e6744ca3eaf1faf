#!/bin/bash
# io_uring requests on registered (fixed) files: the SQE's fd is an index in the ring's file
# table, not an fd. The capture recorded the index as the fd, so a replay wrote into whatever
# file its own fd of that number was ("plain", where the original wrote "fixed"), and said
# "outcomes differing from the original: 0". Now such a request has no fd (-1) and no path,
# IOSQE_FIXED_FILE in mode, is counted (meta capture.uring_fixed_files, record's summary,
# info), and the replay names it as not replayed, with that reason.
source "$(dirname "$0")/lib.sh"
URING=$3
mkdir "$dir/app" || exit 1
"$URING" fixed "$dir/app"
case $? in
0) ;;
2) echo "SKIP: no io_uring here"; exit 77 ;;
*) echo "FAIL: uring_files fixed failed unrecorded"; exit 1 ;;
esac
"$IOREEL" record -o "$dir/t.reel" -- "$URING" fixed "$dir/app" 2> "$dir/rec.err" ||
	{ echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
grep -E "^op=uring_submit " "$dir/ops.txt" > "$dir/sub.txt"
if [ "$(wc -l < "$dir/sub.txt")" != 1 ] ||
	! grep -Eq " fd=-1 fd2=-1 path=- path2=- flags=0 mode=01 .* len=65536 " "$dir/sub.txt"; then
	echo "FAIL: the fixed-file write is not one request without fd and path, mode 0x1:"
	cat "$dir/sub.txt"
	fail=1
fi
grep -q "^meta capture.uring_fixed_files=1$" "$dir/ops.txt" ||
	{ echo "FAIL: meta capture.uring_fixed_files is not 1"; grep uring_fixed "$dir/ops.txt"; fail=1; }
grep -q "^  1 io_uring requests on registered (fixed) files" "$dir/rec.err" ||
	{ echo "FAIL: record's summary does not say so:"; cat "$dir/rec.err"; fail=1; }
"$IOREEL" info "$dir/t.reel" | grep -Eq "^ *capture.uring_fixed_files +1$" ||
	{ echo "FAIL: info does not show capture.uring_fixed_files 1"; fail=1; }

# the replay writes no file for it, and says why
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" > "$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
for f in plain fixed; do
	size=$(stat -c %s "$dir/tgt$dir/app/$f" 2> /dev/null)
	[ "$size" = 0 ] || { echo "FAIL: the replay's $f is '$size' bytes long, want 0"; fail=1; }
done
grep -q "cannot replay uring_submit .*registered (fixed) file" "$dir/out" ||
	{ echo "FAIL: the replay does not name the reason:"; cat "$dir/out"; fail=1; }
grep -Eq "^    [0-9]+ not replayed: unsupported" "$dir/out" &&
	! grep -q "not replayed: unknown fd" "$dir/out" ||
	{ echo "FAIL: the fixed-file requests are not counted as unsupported:"; cat "$dir/out"; fail=1; }
grep -q "opened before the capture" "$dir/out" &&
	{ echo "FAIL: the replay blames an fd opened before the capture:"; cat "$dir/out"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
