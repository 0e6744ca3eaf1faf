#!/bin/bash
# Nothing is prepared below a name the application made, whatever the kind it made it
# (replay_fileset.c): the op that made it says that neither it nor anything below it was
# there. Only names made as directories or symlinks counted, and a name's kind is its first
# op's, so the file set held a directory, and files in it, where the application found none:
# - a directory renamed, then used by its new name (the new name's kind is the old one's,
#   unknown when only paths below it told it was a directory): the rename failed with
#   ENOTEMPTY;
# - a name made a file, removed, then made a directory with a file in it: the create of the
#   file failed with EEXIST (a directory was there), the unlink with EISDIR;
# - a name first absent, then made by renaming a directory to it: the open that found it
#   absent succeeded.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 openat path=/m/old/f flags=O_RDONLY ret=3
1 1 2 3 pread64 fd=3 off=0 len=4096 ret=4096
1 1 4 5 close fd=3 ret=0
1 1 10 11 rename path=/m/old path2=/m/new ret=0
1 1 12 13 stat path=/m/new/f ret=0
1 1 14 15 openat path=/m/new/g flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
1 1 16 17 close fd=3 ret=0
1 1 20 21 openat path=/m/n flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
1 1 22 23 close fd=3 ret=0
1 1 24 25 unlink path=/m/n ret=0
1 1 26 27 mkdir path=/m/n mode=0755 ret=0
1 1 28 29 openat path=/m/n/x flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
1 1 30 31 close fd=3 ret=0
1 1 40 41 openat path=/m/c flags=O_RDONLY ret=-ENOENT
1 1 42 43 stat path=/m/d/h ret=0
1 1 44 45 rename path=/m/d path2=/m/c ret=0
1 1 46 47 stat path=/m/c/h ret=0
SPEC
replay_as_traced original "an outcome differs"
m="$T/tgt/.ioreel-prepared"
for p in m/new m/n m/c; do
	! grep -q " $p\(/\|\$\)" "$m" || fail "$p prepared: $(cat "$m")"
done
grep -q "^f 4096 m/old/f$" "$m" || fail "m/old/f not prepared: $(cat "$m")"
[ -f "$T/tgt/m/new/f" ] && [ -f "$T/tgt/m/c/h" ] && [ -f "$T/tgt/m/n/x" ] ||
	fail "the renames and the create did not replay"
echo PASS
