#!/bin/bash
# A name first seen after a directory above it was removed (or renamed away) is not prepared:
# the directory it was found in was made again by the application, so the name was made by
# it too. borgbackup's lock, in a slice of its trace: lock.exclusive and the file in it found
# (the slice starts while they exist), both removed, then a new lock.exclusive made by
# renaming a temporary directory with a new file in it; the file set held the new file in
# the first lock.exclusive, and the rmdir that the original ran failed with ENOTEMPTY in the
# replay (14 differing outcomes in a 2 s slice of borg create/prune/compact). A name found
# before the removal (L/a) is still prepared.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 stat path=/r/L ret=0
1 1 2 3 stat path=/r/L/a ret=0
1 1 4 5 unlink path=/r/L/a ret=0
1 1 6 7 rmdir path=/r/L ret=0
1 1 10 11 mkdir path=/r/L.tmp mode=0755 ret=0
1 1 12 13 openat path=/r/L.tmp/b flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
1 1 14 15 close fd=3 ret=0
1 1 16 17 rename path=/r/L.tmp path2=/r/L ret=0
1 1 18 19 stat path=/r/L/b ret=0
1 1 20 21 unlink path=/r/L/b ret=0
1 1 22 23 rmdir path=/r/L ret=0
1 1 30 31 stat path=/r/M ret=0
1 1 32 33 rename path=/r/M path2=/r/M.old ret=0
1 1 34 35 mkdir path=/r/M mode=0755 ret=0
1 1 36 37 openat path=/r/M/c flags=O_WRONLY|O_CREAT mode=0644 ret=3
1 1 38 39 close fd=3 ret=0
1 1 40 41 stat path=/r/M/c ret=0
1 1 42 43 rmdir path=/r/M.old ret=0
SPEC
for mode in original afap; do
	replay_as_traced $mode "a name in a directory made again was prepared"
done
m="$T/tgt/.ioreel-prepared"
grep -q "^f 0 r/L/a$" "$m" || fail "r/L/a, found before its directory was removed, not prepared: $(cat "$m")"
! grep -q -e " r/L/b$" -e " r/M/c$" "$m" || fail "a name made by the application prepared: $(cat "$m")"
echo PASS
