#!/bin/bash
# A name that was a symlink (or a file) before the capture, removed by unlink (no
# AT_REMOVEDIR: it was no directory), then made a symlink to a directory by the application,
# with a file made through it (rm W/dl; ln -s dir W/dl; echo x > W/dl/f). The path below it
# was taken for one in a directory by that name: dl was prepared a directory, the unlink
# failed EISDIR and the symlink EEXIST. In an rm -rf of the tree it cascaded (ENOTEMPTY, then
# EEXIST). A path below it named before the unlink (dl/old stat'd) says it was a symlink to a
# directory: then it leads to a stand-in directory holding old.
source "$(dirname "$0")/lib.sh"

A=$T/app # traced paths: never there, so that anything made outside the target shows
mk t <<SPEC
1 1 0 1 unlink path=$A/W/dl ret=0
1 1 1 2 symlink path=$A/W/dl path2=dir ret=0
1 1 2 3 openat path=$A/W/dl/f flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=3
1 1 3 4 write fd=3 off=0 len=2 ret=2
1 1 4 5 close fd=3 ret=0
SPEC
for mode in original afap; do
	replay_as_traced $mode "rm dl; ln -s dir dl; echo x > dl/f"
	[ "$(readlink "$T/tgt$A/W/dl")" = dir ] && [ -f "$T/tgt$A/W/dir/f" ] ||
		fail "$mode: dl/f not made through the new link"
done

# rm -rf W (its symlink dl, its file g), then the tree made again with dl a link again
mk t <<SPEC
1 1 0 1 openat path=$A/W flags=O_RDONLY|O_DIRECTORY ret=3 kind=dir
1 1 1 2 getdents64 fd=3 path=$A/W len=32768 ret=80 kind=dir
1 1 2 3 newfstatat fd=3 path=$A/W/dl flags=0x100 subop=10 ret=0
1 1 3 4 unlinkat fd=3 path=$A/W/dl ret=0
1 1 4 5 newfstatat fd=3 path=$A/W/g flags=0x100 subop=8 ret=0
1 1 5 6 unlinkat fd=3 path=$A/W/g ret=0
1 1 6 7 getdents64 fd=3 path=$A/W len=32768 ret=0 kind=dir
1 1 7 8 close fd=3 ret=0
1 1 8 9 unlinkat fd=-100 path=$A/W flags=AT_REMOVEDIR ret=0
1 1 9 10 mkdir path=$A/W mode=0755 ret=0
1 1 10 11 mkdir path=$A/W/dir mode=0755 ret=0
1 1 11 12 symlink path=$A/W/dl path2=dir ret=0
1 1 12 13 openat path=$A/W/dl/f flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=3
1 1 13 14 write fd=3 off=0 len=2 ret=2
1 1 14 15 close fd=3 ret=0
SPEC
for mode in original afap; do
	replay_as_traced $mode "rm -rf of a tree with a symlink, made again"
	[ -f "$T/tgt$A/W/dir/f" ] || fail "$mode: dl/f not made through the new link"
done

# used through before the unlink: a symlink to a directory, to a stand-in with old in it
mk t <<SPEC
1 1 0 1 newfstatat fd=-100 path=$A/W/dl/old subop=8 aux=101 ret=0
1 1 1 2 unlink path=$A/W/dl ret=0
1 1 2 3 symlink path=$A/W/dl path2=dir ret=0
1 1 3 4 openat path=$A/W/dl/f flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=3
1 1 4 5 close fd=3 ret=0
1 1 5 6 newfstatat fd=-100 path=$A/W/dl/old ret=-ENOENT
SPEC
for mode in original afap; do
	replay_as_traced $mode "dl/old stat'd, rm dl; ln -s dir dl; dl/f made"
done
m=$T/tgt/.ioreel-prepared
grep -q "^l .* ${A#/}/W/dl -> .dl.ioreel-pre$" "$m" || fail "dl not a symlink to a stand-in: $(cat "$m")"
grep -q "^f [0-9]* ${A#/}/W/.dl.ioreel-pre/old$" "$m" || fail "old not in the stand-in: $(cat "$m")"
[ ! -e "$A" ] || fail "the replay wrote outside its target"
echo PASS
