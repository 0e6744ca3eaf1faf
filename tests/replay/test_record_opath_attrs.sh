#!/bin/bash
# End to end: fchmodat2, fchownat and utimensat with AT_EMPTY_PATH on an O_PATH fd, recorded
# live, replay as they succeeded. fchmod, fchown and futimens refuse an O_PATH fd (EBADF):
# the replay must make the calls the application made, not those.
source "$(dirname "$0")/lib.sh"

D=$T/app
mkdir -p "$D"
echo x >"$D/f"
# no BPF here (not root, no tracepoints): skip
"$IOREEL" record -q -o "$T/o.reel" -- "$OPATH_ATTRS" "$D" >"$T/rec.out" 2>&1 || {
	grep -q "opath_attrs\|fchmodat2\|fchownat\|utimensat" "$T/rec.out" && fail "the program itself: $(cat "$T/rec.out")"
	exit 77
}
n=$("$IOREEL" dump "$T/o.reel" | grep -cE " (fchmodat|fchownat|utimensat) .*$D/f")
[ "$n" = 3 ] || fail "the trace holds $n of the 3 attribute calls"
"$IOREEL" replay "$T/o.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	grep -A6 "outcomes differing" "$T/out"
	fail "the attribute calls replayed otherwise"
}
[ "$(stat -c %a "$T/tgt$D/f")" = 640 ] || fail "mode $(stat -c %a "$T/tgt$D/f"), not 640"
echo PASS
