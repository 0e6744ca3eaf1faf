#!/bin/bash
# A path too long to map beneath the target (over PATH_MAX, as an strace import can carry) is
# never resolved: every op on it fails with ENAMETOOLONG, counted when the original's outcome
# differs, and none of them lands on the target's root (a chmod and chown of it once changed
# the root's mode and owner).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || {
	echo "SKIP: chown to another user needs root"
	exit 77
}

long=/srv
for i in $(seq 21); do
	long=$long/$(printf 'd%.0s' $(seq 200))
done
long=$long/f
[ ${#long} -gt 4096 ] || fail "test path only ${#long} bytes"

# The kernel refuses such a path (ENAMETOOLONG), so the original ops that find it could only
# fail that way: those match. The ones that made it (an import resolving a relative path
# against its dirfd) differ, and are counted.
mk t <<SPEC
100 100 0 10 chmod path=$long mode=0700 ret=-ENAMETOOLONG
100 100 10 20 chown path=$long aux=4321 ctx=4321 ret=-ENAMETOOLONG
100 100 20 30 fchmodat fd=-100 path=$long mode=0700 ret=-ENAMETOOLONG
100 100 30 40 utimensat fd=-100 path=$long ret=-ENAMETOOLONG
100 100 40 50 truncate path=$long len=0 ret=-ENAMETOOLONG
100 100 50 60 newfstatat fd=-100 path=$long ret=-ENAMETOOLONG
100 100 55 56 link path=$long path2=/srv/l2 ret=-ENAMETOOLONG
100 100 60 70 mkdir path=$long mode=0700 ret=0
100 100 80 90 linkat fd=-100 fd2=-100 path=/srv/l path2=$long ret=0
100 100 90 100 openat path=$long flags=O_RDWR|O_CREAT mode=0600 ret=3
SPEC
mkdir "$T/tgt"
chmod 0755 "$T/tgt"
before=$(stat -c '%a %u:%g' "$T/tgt")
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
after=$(stat -c '%a %u:%g' "$T/tgt")
[ "$before" = "$after" ] || fail "target root changed: $before -> $after"
grep -q "outcomes differing from the original: 3" "$T/out" || {
	cat "$T/out"
	fail "want 3 outcomes differing"
}
n=$("$IOREEL" dump --format jsonl "$T/r.reel" | grep -c '"ret":-36\|"ret":"-ENAMETOOLONG"')
[ "$n" = 10 ] || {
	"$IOREEL" dump --format jsonl "$T/r.reel" | cut -c1-300 >&2
	fail "want 10 ops failing with ENAMETOOLONG, got $n"
}

# such a path that was there before (read in the original) cannot be prepared: its ops fail,
# the rest replays (the whole replay failed, "cannot read trace: File name too long")
mk p <<SPEC
100 100 0 10 openat path=$long flags=O_RDONLY ret=3
100 100 20 30 pread64 fd=3 off=0 len=100 ret=100
100 100 40 50 openat path=/srv/g flags=O_RDONLY ret=4
100 100 60 70 pread64 fd=4 off=0 len=100 ret=100
SPEC
"$IOREEL" replay "$T/p.reel" --target "$T/tgt2" -o "$T/r2.reel" >"$T/out" 2>&1 ||
	fail "replay of a long path there before failed: $(cat "$T/out")"
grep -q "1 traced paths are too long to be made under the target" "$T/out" ||
	fail "the long path is not said: $(head -5 "$T/out")"
[ "$(stat -c %s "$T/tgt2/srv/g")" = 100 ] || fail "/srv/g not prepared"
echo PASS
