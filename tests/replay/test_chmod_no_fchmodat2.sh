#!/bin/bash
# chmod by path replays through an O_PATH fd with fchmodat2(AT_EMPTY_PATH), which came with
# Linux 6.6. Where it is missing (ENOSYS; here an LD_PRELOAD shim makes it so), the mode is
# set through the fd's /proc/self/fd link, which leads to the file the fd holds (resolved
# beneath the target) and nowhere else; not for a symlink itself (AT_SYMLINK_NOFOLLOW), where
# the link would lead on to the file: that fails, EOPNOTSUPP, as fchmodat2 fails it.
source "$(dirname "$0")/lib.sh"
SHIM=${ENOSYS_FCHMODAT2:-build/tests/replay/libenosys_fchmodat2.so}
[ -f "$SHIM" ] || fail "no shim $SHIM"

mk t <<'SPEC'
100 100 0 10 newfstatat fd=-100 path=/srv/f ret=0
100 100 10 20 newfstatat fd=-100 path=/srv/g ret=0
100 100 20 30 chmod path=/srv/f mode=0600 ret=0
100 100 30 40 fchmodat fd=-100 path=/srv/g mode=0751 ret=0
100 100 40 50 symlink path=/srv/l path2=f ret=0
100 100 50 60 fchmodat fd=-100 path=/srv/l flags=0x100 mode=0777 ret=-95
SPEC
LD_PRELOAD=$SHIM "$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	grep -A4 "outcomes differing\|e\.g\." "$T/out" >&2
	fail "outcomes differ"
}
[ "$(stat -c %a "$T/tgt/srv/f")" = 600 ] && [ "$(stat -c %a "$T/tgt/srv/g")" = 751 ] ||
	fail "modes $(stat -c %a "$T/tgt/srv/f") $(stat -c %a "$T/tgt/srv/g"), want 600 751"
echo PASS
