#!/bin/bash
# A symlink used as a directory, then unlinked and replaced by a real directory: what goes
# through the name afterwards goes into the new directory, not through the parent fd the
# worker cached while the name led to the symlink's destination (the unlink of a run with
# symlinks makes cached directory fds stale, as a rename or rmdir does).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 newfstatat fd=-100 path=/srv/v1/x ret=0
100 100 10 20 symlink path=/srv/cur path2=v1 ret=0
100 100 20 30 newfstatat fd=-100 path=/srv/cur/x ret=0
100 100 30 40 unlink path=/srv/cur ret=0
100 100 40 50 mkdir path=/srv/cur mode=0755 ret=0
100 100 50 60 mkdir path=/srv/cur/new mode=0755 ret=0
100 100 60 70 newfstatat fd=-100 path=/srv/cur/x ret=-ENOENT
100 100 70 80 openat path=/srv/cur/f flags=O_WRONLY|O_CREAT mode=0644 ret=3
100 100 80 90 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
d=$T/tgt/srv
[ -d "$d/cur" ] && [ ! -L "$d/cur" ] || fail "cur is not a directory"
[ -d "$d/cur/new" ] && [ -f "$d/cur/f" ] || fail "new and f not made in the new cur"
[ ! -e "$d/v1/new" ] && [ ! -e "$d/v1/f" ] || fail "made in v1, through the unlinked symlink"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "outcomes differ"
}
echo PASS
