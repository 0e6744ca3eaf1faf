#!/bin/bash
# Two --targets of one command, one inside the other, are refused before anything is made,
# in either order, written relatively, with . and .., or through a symlink: each replay
# prepares its target afresh, and the outer's preparation wiped the inner's replay (the
# check covered --map destinations only). Side by side, they replay.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/d/f flags=O_RDONLY ret=3
100 100 20 30 pread64 fd=3 off=0 len=4096 ret=4096
SPEC
refused() {
	"$IOREEL" replay "$T/t.reel" -q -o "$T/r.reel" "$@" >"$T/out" 2>&1
	local rc=$?
	[ $rc = 2 ] || fail "$* : exit $rc, not 2: $(cat "$T/out")"
	grep -q "^ioreel: refusing nested targets .*: preparing one would wipe the other" "$T/out" ||
		fail "$* : $(cat "$T/out")"
	[ "$(wc -l <"$T/out")" = 1 ] || fail "more than one line: $(cat "$T/out")"
	[ ! -e "$T/n" ] || fail "$* : $(find "$T/n") made"
}
refused --target "$T/n" --target "$T/n/in"
refused --target "$T/n/in" --target "$T/n"
refused --target "$T/n/a/.." --target "$T/n//a/./b"
(cd "$T" && refused --target n/x --target "$T/n")
mkdir -p "$T/real"
ln -s real "$T/link"
"$IOREEL" replay "$T/t.reel" -q -o "$T/r.reel" --target "$T/real" --target "$T/link/in" \
	>"$T/out" 2>&1 && fail "a target below a symlink to the other was taken"
grep -q "refusing nested targets" "$T/out" || fail "through a symlink: $(cat "$T/out")"
"$IOREEL" replay "$T/t.reel" -q -o "$T/r.reel" --target "$T/s/a" --target "$T/s/ab" \
	>"$T/out" 2>&1 || fail "side by side: $(cat "$T/out")"
[ -f "$T/s/a/d/f" ] && [ -f "$T/s/ab/d/f" ] || fail "side by side: not both prepared"
echo PASS
