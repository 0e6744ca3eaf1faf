#!/bin/bash
# A symlink that was there before the capture, readlink'd, then removed and made again by the
# application (git stash -u and stash pop of an untracked symlink; ln -sf; an unpacker writing
# over a tree) is prepared as the symlink that was there, with the content readlink read: the
# later symlink() made by the application says nothing of what was there before it. It was
# prepared as a plain file or directory (the trace's lstat of it, newfstatat with
# AT_SYMLINK_NOFOLLOW as git makes it, succeeded), so the first readlink failed with EINVAL
# (git trial: 1 outcome differing in every timing mode). What the application read through
# the link it made is prepared where that link's content leads.
source "$(dirname "$0")/lib.sh"

A=$T/app # traced paths: never there, so that anything made outside the target shows
mk t <<SPEC
100 100 0 10 newfstatat fd=-100 path=$A/w/new/up flags=0x100 ret=0
100 100 10 20 readlink path=$A/w/new/up path2=../d1 len=32 ret=5
100 100 20 30 unlink path=$A/w/new/up ret=0
100 100 30 40 newfstatat fd=-100 path=$A/w/new/ln flags=0x100 ret=0
100 100 40 50 readlinkat fd=-100 path=$A/w/new/ln path2=old/target len=64 ret=10
100 100 50 60 unlink path=$A/w/new/ln ret=0
100 101 100 110 symlink path=$A/w/new/up path2=../d1 ret=0
100 101 110 120 readlink path=$A/w/new/up path2=../d1 len=32 ret=5
100 101 120 130 symlink path=$A/w/new/ln path2=another/target ret=0
100 101 130 140 readlinkat fd=-100 path=$A/w/new/ln path2=another/target len=64 ret=14
100 101 140 150 openat path=$A/w/new/ln flags=O_RDONLY ret=3
100 101 150 160 pread64 fd=3 off=0 len=700 ret=700
100 101 160 170 close fd=3 ret=0
SPEC

for mode in original think afap; do
	replay_as_traced $mode "a symlink there before, removed and made again, was not prepared"
	d=$T/tgt$A/w/new
	[ "$(readlink "$d/up")" = ../d1 ] || fail "$mode: up reads '$(readlink "$d/up")'"
	[ "$(readlink "$d/ln")" = another/target ] || fail "$mode: ln reads '$(readlink "$d/ln")'"
	# read through the link the application made: where its content leads, not the old one
	[ "$(stat -c %s "$d/another/target")" -ge 700 ] || fail "$mode: another/target not prepared"
	[ ! -e "$d/old/target" ] || fail "$mode: old/target prepared, the read went through the new link"
done
[ ! -e "$A" ] || fail "the replay wrote outside its target"
echo PASS
