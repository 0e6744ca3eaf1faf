#!/bin/bash
# Extended attributes are not recorded (data, like file contents), but a change of one can be
# a change of mode: cp -a and cp -p set each copy's mode with an ACL (fsetxattr of
# system.posix_acl_access; the copy was made 0600), so a replay's copies kept 0600 where the
# original's were 0644, and nothing said so (tar x + cp -a + rm -rf trial: 182 such calls,
# 157 copies with another mode, "outcomes differing from the original: 0"). The recorder counts
# the setxattr/removexattr calls that succeeded (capture.xattr_ops), and record and replay say
# how many were left out.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
mkdir -p "$dir/src"
echo data > "$dir/src/f"
chmod 0644 "$dir/src/f"
# python: setxattr by path, by fd, removexattr; one that fails (no such attribute) is no change
cat > "$dir/x.py" << 'PY'
import os, sys
f = sys.argv[1]
os.setxattr(f, "user.a", b"1")
fd = os.open(f, os.O_RDONLY)
os.setxattr(fd, "user.b", b"2")
os.close(fd)
os.removexattr(f, "user.a")
try:
    os.removexattr(f, "user.none")
except OSError:
    pass
PY
python3 "$dir/x.py" "$dir/src/f" 2> /dev/null ||
	{ echo "SKIP: user extended attributes not supported under $dir"; exit 77; }
fail=0
"$IOREEL" record -o "$dir/x.reel" -- python3 "$dir/x.py" "$dir/src/f" 2> "$dir/rec.err" ||
	{ echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
n=$("$IOREEL" info "$dir/x.reel" | sed -n 's/^ *capture.xattr_ops *//p')
[ "$n" = 3 ] || { echo "FAIL: capture.xattr_ops '$n', want 3 (2 setxattr, 1 removexattr)"; fail=1; }
grep -q "^  3 extended attribute changes .* not recorded" "$dir/rec.err" ||
	{ echo "FAIL: record did not say so:"; cat "$dir/rec.err"; fail=1; }

# cp -a, when it sets modes with ACLs: counted, and the replay says they were left out
"$IOREEL" record -q -o "$dir/cp.reel" -- cp -a "$dir/src" "$dir/dst" ||
	{ echo "FAIL: record cp -a exited $?"; exit 1; }
n=$("$IOREEL" info "$dir/cp.reel" | sed -n 's/^ *capture.xattr_ops *//p')
if command -v strace > /dev/null &&
	strace -f -qq -e trace=setxattr,lsetxattr,fsetxattr,removexattr,lremovexattr,fremovexattr \
		-o "$dir/cp.strace" cp -a "$dir/src" "$dir/probe" &&
	grep -q 'xattr(.*) = 0$' "$dir/cp.strace"; then
	want=$(grep -c 'xattr(.*) = 0$' "$dir/cp.strace")
	[ "$n" = "$want" ] || { echo "FAIL: cp -a: capture.xattr_ops '$n', strace saw $want"; fail=1; }
	"$IOREEL" replay "$dir/cp.reel" --target "$dir/tgt" --timing afap -o "$dir/r.reel" \
		> "$dir/replay.out" 2>&1 || { echo "FAIL: replay exited $?"; cat "$dir/replay.out"; exit 1; }
	grep -q "^  $want extended attribute changes of the application .* not replayed" \
		"$dir/replay.out" || { echo "FAIL: the replay did not say so:"; cat "$dir/replay.out"; fail=1; }
else
	echo "note: this cp sets no extended attribute (or no strace): its count not checked"
fi
[ $fail = 0 ] && echo "PASS"
exit $fail
