#!/bin/bash
# A symlink there before the capture that a stat followed (newfstatat without
# AT_SYMLINK_NOFOLLOW: it succeeded, so what it led to was there), whose content a readlink
# read, and that the application then removed and made again with another content: what the
# old link led to is prepared too, where that content leads. The file set followed only the
# link the application made, so once stats follow symlinks in the replay the first stat
# failed with ENOENT. The link made again leads where the application's content says.
source "$(dirname "$0")/lib.sh"

A=$T/app # traced paths: never there, so that anything made outside the target shows
mk t <<SPEC
100 100 0 10 newfstatat fd=-100 path=$A/w/new/ln ret=0
100 100 10 20 readlinkat fd=-100 path=$A/w/new/ln path2=old/target len=64 ret=10
100 100 20 30 unlink path=$A/w/new/ln ret=0
100 100 30 40 symlink path=$A/w/new/ln path2=another/target ret=0
100 100 40 50 openat path=$A/w/new/ln flags=O_RDONLY ret=3
100 100 50 60 pread64 fd=3 off=0 len=700 ret=700
100 100 60 70 close fd=3 ret=0
100 100 70 80 stat path=$A/w/new/ln ret=0
SPEC

for mode in original think afap; do
	replay_as_traced $mode "the destination of a symlink there before, followed, then made again"
	d=$T/tgt$A/w/new
	[ "$(readlink "$d/ln")" = another/target ] || fail "$mode: ln reads '$(readlink "$d/ln")'"
	[ -e "$d/old/target" ] || fail "$mode: old/target, which the first stat found, not prepared"
	[ "$(stat -c %s "$d/another/target")" -ge 700 ] || fail "$mode: another/target not prepared"
done
[ ! -e "$A" ] || fail "the replay wrote outside its target"
echo PASS
