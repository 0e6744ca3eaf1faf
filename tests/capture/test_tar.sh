#!/bin/bash
# "tar x" restores what it extracts: owner, mode and times of each file, hard links and
# symlinks. Recorded, each of those must come out naming the extracted file (whichever call
# of each family this tar uses: fchown or fchownat, fchmod or chmod through /proc/self/fd,
# futimens or utimensat), with the mode and the ids asked, and no path under /proc; then
# replayed, the tree comes out as tar made it.
source "$(dirname "$0")/lib.sh"
command -v tar > /dev/null || { echo "SKIP: no tar"; exit 77; }

mkdir -p "$dir/src/d" "$dir/x"
echo data > "$dir/src/d/f"
chmod 0640 "$dir/src/d/f"
chmod 0750 "$dir/src/d"
ln "$dir/src/d/f" "$dir/src/d/h"
ln -s f "$dir/src/d/l"
chown 1234:5678 "$dir/src/d/f"
tar -C "$dir/src" -cf "$dir/a.tar" d || { echo "FAIL: tar c"; exit 1; }
"$IOREEL" record -q -o "$dir/t.reel" -- tar -C "$dir/x" -xf "$dir/a.tar" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }

fail=0
expect() { # WHAT REGEX: some op line must match
	if ! grep -Eq -- "$2" "$dir/ops.txt"; then
		echo "FAIL: no op $1 ($2)"
		fail=1
	fi
}
X="$dir/x/d"
# tar extracts the first name of the hard-linked pair as the file, the second as a link to it
file=$(grep -E "^op=open(at)? .* path=$X/[fh] .* ret=[0-9]+ " "$dir/ops.txt" | head -1 |
	sed 's/.* path=\([^ ]*\) .*/\1/')
case $file in
"$X/f") other=$X/h ;;
"$X/h") other=$X/f ;;
*) echo "FAIL: no open of the extracted file ($X/f or $X/h)"; exit 1 ;;
esac
expect "sets the file's mode 0640" "^op=(chmod|fchmod|fchmodat) .* path=$file .* mode=0640 .* ret=0 "
expect "sets its owner 1234:5678" \
	"^op=(chown|lchown|fchown|fchownat) .* path=$file .* ret=0 .* aux=1234 ctx=0x162e "
expect "sets its times" "^op=utimensat .* path=$file .* ret=0 "
expect "links it" "^op=link(at)? .* path=$file path2=$other .* ret=0 "
expect "makes the symlink" "^op=symlink(at)? .* path=$X/l path2=f .* ret=0 "
expect "sets the symlink's times" "^op=utimensat .* path=$X/l .* flags=0x100 .* ret=0 "
expect "sets the directory's mode 0750" "^op=(chmod|fchmod|fchmodat) .* path=$X .* mode=0750 .* ret=0 "
expect "sets the directory's times" "^op=utimensat .* path=$X .* ret=0 "
if grep -E "^op=(chmod|chown|lchown|utimensat|fchmodat|fchownat) .* path=/proc/" "$dir/ops.txt"; then
	echo "FAIL: a /proc/self/fd path reached the trace"
	fail=1
fi
[ "$(stat -c %a:%u:%g "$dir/x/d/f")" = 640:1234:5678 ] || { echo "FAIL: tar under record"; fail=1; }

# Replayed beneath a target (the archive prepared as the file tar read, with other bytes),
# every op ends as it did, and the tree comes out as tar made it: the file's size, mode and
# owner, the hard link, the symlink's content, the directory's mode.
rm -rf "$dir/x"
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" --timing afap -o "$dir/res.reel" \
	> "$dir/replay.out" 2>&1 || { echo "FAIL: replay exited $?"; cat "$dir/replay.out"; exit 1; }
grep -q "outcomes differing from the original: 0$" "$dir/replay.out" ||
	{ echo "FAIL: outcomes differ in the replay:"; cat "$dir/replay.out"; fail=1; }
R=$dir/tgt$X
[ "$(stat -c %s:%a:%u:%g:%h "$R/f")" = 5:640:1234:5678:2 ] ||
	{ echo "FAIL: replayed file: $(stat -c %s:%a:%u:%g:%h "$R/f"), want 5:640:1234:5678:2"; fail=1; }
[ "$(stat -c %i "$R/f")" = "$(stat -c %i "$R/h")" ] || { echo "FAIL: h is not a hard link of f"; fail=1; }
[ "$(readlink "$R/l")" = f ] || { echo "FAIL: replayed symlink reads '$(readlink "$R/l")'"; fail=1; }
[ "$(stat -c %a "$R")" = 750 ] || { echo "FAIL: replayed directory mode $(stat -c %a "$R")"; fail=1; }
[ ! -e "$dir/x/d" ] || { echo "FAIL: the replay wrote outside its target"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
