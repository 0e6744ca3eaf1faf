#!/bin/bash
# A symlink opened itself (O_PATH | O_NOFOLLOW) is a name of the file tree, not a non-file:
# its open, the fstat through the fd and its close are recorded (borg extract does that for
# each symlink it makes: 107 opens, fstats and closes were left out as non-file ops, which
# strace's import of the same run had), and replay with no outcome differing.
source "$(dirname "$0")/lib.sh"
mkdir "$dir/app" || exit 1
cat >"$dir/app.py" <<'PY'
import os, sys
d = sys.argv[1]
os.symlink("target", d + "/l")
fd = os.open(d + "/l", os.O_PATH | os.O_NOFOLLOW)
os.fstat(fd)
os.close(fd)
PY
"$IOREEL" record -q -o "$dir/t.reel" -- /usr/bin/python3 "$dir/app.py" "$dir/app" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
fd=$(grep -E "^op=openat .* path=$dir/app/l .* ret=[0-9]+ " "$dir/ops.txt" | head -1 |
	sed 's/.* ret=\([0-9]*\) .*/\1/')
if [ -z "$fd" ]; then
	echo "FAIL: the O_PATH open of the symlink is not in the trace:"
	grep -F "$dir/app" "$dir/ops.txt"
	exit 1
fi
for op in fstat close; do
	grep -Eq "^op=$op .* fd=$fd .*path=$dir/app/l .* ret=0 " "$dir/ops.txt" ||
		{ echo "FAIL: no $op of fd $fd (the symlink's)"; fail=1; }
done
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" > "$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
grep -q "outcomes differing from the original: 0" "$dir/out" && grep -q "ops not replayed: 0" "$dir/out" || {
	echo "FAIL: the replay differs:"
	grep -A5 -e "outcomes differing" -e "not replayed" "$dir/out"
	fail=1
}
[ $fail = 0 ] && echo "PASS"
exit $fail
