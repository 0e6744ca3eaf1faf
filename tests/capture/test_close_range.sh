#!/bin/bash
# close_range(2) and memfd_create. The capture dropped the fds close_range closed from its fd
# table but wrote no record of it, so the replay kept those files open; and a memfd's I/O,
# its inode a regular file's, was recorded as file I/O: after close_range(x1, x2, 0) the
# memfd got x1's number and its write was replayed into x1. Now each fd of the range the
# capture knew open has a close record (subop 1), CLOSE_RANGE_CLOEXEC closes nothing,
# CLOSE_RANGE_UNSHARE closes the caller's own copy only, and a memfd's ops are non-file ops.
source "$(dirname "$0")/lib.sh"
CR=$3
A=$dir/app
mkdir "$A" || exit 1
"$CR" "$A" || { echo "FAIL: close_range failed unrecorded"; exit 1; }
rm -f "$A"/*
"$IOREEL" record -q -o "$dir/t.reel" -- "$CR" "$A" || { echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
pid=$(grep -m1 "^op=openat .* path=$A/x1 " "$dir/ops.txt" | sed 's/.* pid=\([0-9]*\) .*/\1/')

# 1. a close record for each of x1 and x2, with close_range's result
for f in x1 x2; do
	grep -Eq "^op=close pid=$pid .* path=$A/$f .* ret=0 subop=1 " "$dir/ops.txt" ||
		{ echo "FAIL: no close record of $f from close_range"; fail=1; }
done
# and nothing on x1's number from there until keep's open takes it again: the memfd's write,
# ftruncate, mmap, munmap and close are non-file ops
awk -v x1="$A/x1" -v keep="$A/keep" '
	/^op=close / && / subop=1 / && index($0, " path=" x1 " ") {
		match($0, / fd=[0-9]+ /); fd = substr($0, RSTART, RLENGTH); on = 1; next }
	on && /^op=openat / && index($0, " path=" keep " ") { on = 0 }
	on && index($0, fd) { print; bad = 1 }
	END { exit bad }' "$dir/ops.txt" > "$dir/memfd.txt" ||
	{ echo "FAIL: the memfd's ops are in the trace as file I/O:"; cat "$dir/memfd.txt"; fail=1; }

# 2. CLOSE_RANGE_CLOEXEC closes nothing: no close record, the write after it on keep's file
grep -Eq "^op=close .* path=$A/keep .* subop=1 " "$dir/ops.txt" &&
	{ echo "FAIL: close_range(CLOSE_RANGE_CLOEXEC) recorded as a close"; fail=1; }
grep -Eq "^op=write pid=$pid .* path=$A/keep .* len=1 ret=1 " "$dir/ops.txt" ||
	{ echo "FAIL: the write to keep after CLOSE_RANGE_CLOEXEC has not its path"; fail=1; }

# 3. CLOSE_RANGE_UNSHARE in a clone(CLONE_FILES) child: its close, the parent's write after
grep -Eq "^op=close pid=[0-9]+ .* path=$A/shared .* ret=0 subop=1 " "$dir/ops.txt" &&
	! grep -Eq "^op=close pid=$pid .* path=$A/shared .* subop=1 " "$dir/ops.txt" ||
	{ echo "FAIL: no close record of shared by the child alone"; grep "/shared" "$dir/ops.txt"; fail=1; }
grep -Eq "^op=write pid=$pid .* path=$A/shared .* len=6 ret=6 " "$dir/ops.txt" ||
	{ echo "FAIL: the parent's write to shared after the child's unshare has not its path"; fail=1; }

# the replay writes nothing into x1 and x2, and every op ends as it did
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" > "$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
for f in x1 x2; do
	size=$(stat -c %s "$dir/tgt$A/$f" 2> /dev/null)
	[ "$size" = 0 ] || { echo "FAIL: the replay's $f is '$size' bytes long, want 0"; fail=1; }
done
grep -q "outcomes differing from the original: 0$" "$dir/out" &&
	grep -q "ops not replayed: 0$" "$dir/out" ||
	{ echo "FAIL: the replay differs:"; cat "$dir/out"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
