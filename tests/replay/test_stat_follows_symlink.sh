#!/bin/bash
# stat, newfstatat and statx without AT_SYMLINK_NOFOLLOW, access and faccessat follow a last
# symlink, as the original calls did; lstat and AT_SYMLINK_NOFOLLOW do not. The replay made
# every one of them on the parent's fd with AT_SYMLINK_NOFOLLOW (once, no symlink could be in
# the target), so a stat of a dangling symlink succeeded where the original's failed with
# ENOENT: rsync -a of /usr/include (clang/14.0.6/include -> ../../../lib/llvm-14/...,
# dangling in the copy) stats each name to follow it, then lstats it: 6 outcomes differed in
# every timing mode. Checked here on a dangling symlink there before the capture (its content
# read by readlinkat, as rsync does), one the application made, and one leading to a file the
# application made: each follow fails or succeeds as in the trace, whatever the timing.
source "$(dirname "$0")/lib.sh"

A=$T/app # traced paths: never there, so that anything made outside the target shows
mk t <<SPEC
100 100 0 10 newfstatat fd=-100 path=$A/src/inc flags=0x100 ret=0
100 100 10 20 readlinkat fd=-100 path=$A/src/inc path2=../lib/none/inc len=4095 ret=15
100 100 20 30 newfstatat fd=-100 path=$A/src/inc flags=0 ret=-ENOENT
100 100 30 40 stat path=$A/src/inc ret=-ENOENT
100 100 40 50 lstat path=$A/src/inc ret=0
100 100 50 60 mkdir path=$A/d mode=0755 ret=0
100 100 60 70 symlink path=$A/d/dangling path2=nowhere ret=0
100 100 70 80 stat path=$A/d/dangling ret=-ENOENT
100 100 80 90 newfstatat fd=-100 path=$A/d/dangling flags=0 ret=-ENOENT
100 100 90 100 newfstatat fd=-100 path=$A/d/dangling flags=0x100 ret=0
100 100 100 110 statx fd=-100 path=$A/d/dangling flags=0 mode=0x7ff ret=-ENOENT
100 100 110 120 statx fd=-100 path=$A/d/dangling flags=0x100 mode=0x7ff ret=0
100 100 120 130 access path=$A/d/dangling mode=0 ret=-ENOENT
100 100 130 140 faccessat fd=-100 path=$A/d/dangling mode=4 flags=0 ret=-ENOENT
100 100 140 150 openat fd=-100 path=$A/d/f flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
100 100 150 160 close fd=3 ret=0
100 100 160 170 symlink path=$A/d/good path2=f ret=0
100 100 170 180 stat path=$A/d/good ret=0
100 100 180 190 statx fd=-100 path=$A/d/good flags=0 mode=0x7ff ret=0
100 100 190 200 access path=$A/d/good mode=4 ret=0
100 100 200 210 lstat path=$A/d/good ret=0
SPEC
for mode in original think afap; do
	replay_as_traced $mode "a stat or access of a symlink did not follow it"
	grep -q "ops not replayed: 0" "$T/out" || { cat "$T/out"; fail "$mode: ops not replayed"; }
done
rm -rf "$T/tgt"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap --engine io_uring -o "$T/r.reel" \
	>"$T/out" 2>&1 || fail "io_uring replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || { cat "$T/out"; fail "io_uring"; }
[ ! -e "$T/app" ] || fail "something was made outside the target"
echo PASS
