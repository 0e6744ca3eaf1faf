#!/bin/bash
# End to end: the atomic symlink switch recorded live (current -> v1 there before; cat
# current/file; ln -s v2 current.tmp; mv -T current.tmp current; cat current/file; readlink
# current) replays with every outcome as recorded: current is prepared as a symlink (mv's
# lstat found one, a non-directory was renamed over it), not as a directory (the rename
# failed EISDIR, the readlink EINVAL).
source "$(dirname "$0")/lib.sh"

D=$T/app/D
mkdir -p "$D/v1" "$D/v2"
echo one >"$D/v1/file"
echo two >"$D/v2/file"
ln -s v1 "$D/current"
cat >"$T/sw.sh" <<SH
cd "$D"; cat current/file; ln -s v2 current.tmp; mv -T current.tmp current; cat current/file; readlink current
SH
# no BPF here (not root, no tracepoints): skip
"$IOREEL" record -q -o "$T/sw.reel" -- bash "$T/sw.sh" >"$T/rec.out" 2>&1 || exit 77
[ "$(head -3 "$T/rec.out" | tr '\n' ' ')" = "one two v2 " ] || fail "the script itself: $(cat "$T/rec.out")"
"$IOREEL" replay "$T/sw.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	grep -A8 "outcomes differing" "$T/out"
	fail "the switch replayed otherwise"
}
[ "$(readlink "$T/tgt$D/current")" = v2 ] || fail "current reads '$(readlink "$T/tgt$D/current")'"
echo PASS
