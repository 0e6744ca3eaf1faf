#!/bin/bash
# ioreel record -- sh -c '...': the basic ops of a small shell pipeline come out with their
# exact absolute paths (relative ones resolved against the cwd the shell cd'ed to), file
# positions for read/write (set by lseek, not passed), lengths and results; fork is followed.
source "$(dirname "$0")/lib.sh"

"$IOREEL" record -q -o "$dir/t.reel" -- sh -c "cd $dir && mkdir sub && printf 0123456789 > sub/a &&
	dd if=sub/a of=sub/b bs=4 skip=1 seek=2 conv=notrunc status=none && mv sub/b sub/c &&
	rm sub/a" || { echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }

fail=0
expect() { # a regex that some op line must match
	if ! grep -Eq -- "$1" "$dir/ops.txt"; then
		echo "FAIL: no op matches: $1"
		fail=1
	fi
}
D="$dir"
expect "^op=mkdir(at)? .* path=$D/sub .* ret=0 "
expect "^op=openat .*kind=reg .* path=$D/sub/a .* flags=0x241 .* ret=[0-9]+ "
expect "^op=write .* fd=1 .* path=$D/sub/a .* offset=0 len=10 ret=10 "
expect "^op=read .* fd=0 .* path=$D/sub/a .* offset=4 len=4 ret=4 "
expect "^op=read .* fd=0 .* path=$D/sub/a .* offset=8 len=4 ret=2 "
expect "^op=write .* fd=1 .* path=$D/sub/b .* offset=8 len=4 ret=4 "
expect "^op=write .* fd=1 .* path=$D/sub/b .* offset=12 len=2 ret=2 "
expect "^op=rename(at2?)? .* path=$D/sub/b path2=$D/sub/c .* ret=0 "
expect "^op=unlink(at)? .* path=$D/sub/a .* ret=0 "
expect "^meta lost_events=0$"
expect "^meta anonymized=0$"
# the pipeline ran in several processes: the forks were followed
npids=$(grep '^op=' "$dir/ops.txt" | sed 's/.* pid=\([0-9]*\) .*/\1/' | sort -u | wc -l)
if [ "$npids" -lt 4 ]; then
	echo "FAIL: ops from $npids processes, expected sh, mkdir, dd, mv, rm"
	fail=1
fi
# a relative path must never reach the trace
if grep -E '^op=.* path=[^/-]' "$dir/ops.txt"; then
	echo "FAIL: relative path in the trace"
	fail=1
fi
[ $fail = 0 ] && echo "PASS"
exit $fail
