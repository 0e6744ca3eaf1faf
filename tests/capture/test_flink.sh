#!/bin/bash
# open(2)'s O_TMPFILE idiom, recorded and replayed: an unnamed file given a name by
# linkat(AT_FDCWD, "/proc/self/fd/N", AT_FDCWD, name, AT_SYMLINK_FOLLOW), then reopened by
# that name. The trace must have the link from fd N itself (FORMAT.md: fd N, AT_EMPTY_PATH,
# no /proc path), which a replay can make, so that the later open of the name succeeds in
# the replay as it did in the original: no outcome differs.
source "$(dirname "$0")/lib.sh"
FLINK=$3
mkdir "$dir/app" || exit 1
"$FLINK" "$dir/app" && rm -f "$dir/app/name" ||
	{ echo "SKIP: no O_TMPFILE on $dir"; exit 77; }
"$IOREEL" record -q -o "$dir/t.reel" -- "$FLINK" "$dir/app" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
fd=$(grep -E "^op=openat .* path=$dir/app .* ret=[0-9]+ " "$dir/ops.txt" | head -1 |
	sed 's/.* ret=\([0-9]*\) .*/\1/')
[ -n "$fd" ] || { echo "FAIL: no O_TMPFILE open in the trace"; exit 1; }
grep -Eq "^op=linkat .* kind=reg fd=$fd fd2=-100 path=$dir/app path2=$dir/app/name flags=0x1000 .* ret=0 " \
	"$dir/ops.txt" || {
	echo "FAIL: the flink is not a link from fd $fd:"
	grep -E "^op=link" "$dir/ops.txt"
	fail=1
}
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" > "$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
grep -q "outcomes differing from the original: 0" "$dir/out" || {
	echo "FAIL: the replay differs:"
	grep -A5 "outcomes differing" "$dir/out"
	fail=1
}
[ $fail = 0 ] && echo "PASS"
exit $fail
