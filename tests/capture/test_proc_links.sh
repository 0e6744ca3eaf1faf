#!/bin/bash
# File I/O through a /dev or /proc name of another file: `tar cf /dev/stdout > out.tar`,
# `md5sum /dev/stdin < big.txt`, `md5sum /dev/fd/3 3< d.csv`, and python's opens of
# "/proc/self/cwd/pc.out" and "/proc/self/root/$dir/app/pr.out". The trace names the files
# themselves (their I/O was left out as non-file ops, the /dev and /proc names being no
# storage: out.tar replayed 0 bytes long, big.txt and d.csv prepared empty), and the replay
# writes and reads their bytes with no outcome differing.
source "$(dirname "$0")/lib.sh"
app=$dir/app
mkdir -p "$app/src" || exit 1
for i in 1 2 3 4; do head -c 30000 /dev/urandom >"$app/src/f$i"; done
head -c 70000 /dev/urandom >"$app/big.txt"
head -c 50000 /dev/urandom >"$app/d.csv"
cat >"$dir/app.py" <<'PY'
import os, sys
with open("/proc/self/cwd/pc.out", "wb") as f:
    f.write(b"c" * 20000)
with open("/proc/self/root" + sys.argv[1] + "/pr.out", "wb") as f:
    f.write(b"r" * 30000)
PY
"$IOREEL" record -q -o "$dir/t.reel" -- /bin/bash -c '
	cd "$1" || exit 1
	tar cf /dev/stdout src > out.tar || exit 1
	md5sum /dev/stdin < big.txt > /dev/null || exit 1
	md5sum /dev/fd/3 3< d.csv > /dev/null || exit 1
	/usr/bin/python3 "$2" "$1"' sh "$app" "$dir/app.py" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
if grep -Eq " path=(/dev/std|/dev/fd/|/proc/self/(cwd|root)|/proc/[0-9]+/fd/)" "$dir/ops.txt"; then
	echo "FAIL: ops named after the /dev or /proc link, not the file:"
	grep -E " path=(/dev/std|/dev/fd/|/proc/self/(cwd|root)|/proc/[0-9]+/fd/)" "$dir/ops.txt" |
		head -5
	fail=1
fi
# the opens through the links, by the file's name (bash's own opens are O_WRONLY|O_CREAT|
# O_TRUNC or O_RDONLY at the top of the trace: each file is opened at least twice)
for f in out.tar big.txt d.csv; do
	n=$(grep -Ec "^op=(open|openat|creat) .*path=$app/$f .* ret=[0-9]+ " "$dir/ops.txt")
	[ "$n" -ge 2 ] || { echo "FAIL: $n successful opens of $f, not 2 (its link's open)"; fail=1; }
done
for f in pc.out pr.out; do
	grep -Eq "^op=(open|openat|creat) .*path=$app/$f .* ret=[0-9]+ " "$dir/ops.txt" ||
		{ echo "FAIL: no open of $f by its name"; fail=1; }
done
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" > "$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
grep -q "outcomes differing from the original: 0" "$dir/out" && grep -q "ops not replayed: 0" "$dir/out" || {
	echo "FAIL: the replay differs:"
	grep -A5 -e "outcomes differing" -e "not replayed" "$dir/out"
	fail=1
}
# written through the links: as long as the originals; read through them: prepared so
for f in out.tar pc.out pr.out big.txt d.csv; do
	want=$(stat -c %s "$app/$f")
	got=$(stat -c %s "$dir/tgt$app/$f" 2>/dev/null || echo none)
	[ "$got" = "$want" ] || { echo "FAIL: $f is $got bytes in the target, $want originally"; fail=1; }
done
[ $fail = 0 ] && echo "PASS"
exit $fail
