#!/bin/bash
# The "atomic symlink switch": current -> v1 was there before the capture, read through as
# current/file, then replaced by a rename of a new link over it (ln -s v2 current.tmp;
# mv -T current.tmp current). The rename of a non-directory over current (or an lstat that
# found a symlink, or an O_NOFOLLOW open failing ELOOP) says current was no directory: with a
# path below it, a symlink to one. It was prepared as a directory: the rename failed EISDIR
# and the readlink after it EINVAL. Now it is a symlink: to where a readlink of it read
# before, else to a stand-in directory beside it holding what was read through it; either
# way beneath the target.
source "$(dirname "$0")/lib.sh"

A=$T/app # traced paths: never there, so that anything made outside the target shows
# evidence: the rename alone; an lstat (as mv makes it); an O_NOFOLLOW open failing ELOOP
for ev in rename lstat nofollow readlink; do
	case $ev in
	rename) e="1 1 4 5 newfstatat fd=-100 path=$A/D subop=4 ret=0" ;;
	lstat) e="1 1 4 5 newfstatat fd=-100 path=$A/D/current flags=0x100 subop=10 ret=0" ;;
	nofollow) e="1 1 4 5 openat path=$A/D/current flags=O_RDONLY|O_NOFOLLOW ret=-ELOOP" ;;
	readlink) e="1 1 4 5 readlink path=$A/D/current path2=v1 len=64 ret=2" ;;
	esac
	mk t <<SPEC
1 1 0 1 openat path=$A/D/current/file flags=O_RDONLY ret=3
1 1 1 2 read fd=3 off=0 len=4096 ret=700
1 1 2 3 close fd=3 ret=0
1 1 3 4 symlink path=$A/D/current.tmp path2=v2 ret=0
$e
1 1 5 6 rename path=$A/D/current.tmp path2=$A/D/current ret=0
1 1 6 7 openat path=$A/D/current/file flags=O_RDONLY ret=3
1 1 7 8 read fd=3 off=0 len=4096 ret=300
1 1 8 9 close fd=3 ret=0
1 1 9 10 readlink path=$A/D/current path2=v2 len=64 ret=2
SPEC
	for mode in original afap; do
		replay_as_traced $mode "$ev: the switch of a symlink there before replayed otherwise"
		d=$T/tgt$A/D
		[ "$(readlink "$d/current")" = v2 ] || fail "$ev $mode: current reads '$(readlink "$d/current")'"
		[ "$(stat -c %s "$d/v2/file")" -ge 300 ] || fail "$ev $mode: v2/file not prepared"
	done
	# as prepared (--fresh not needed: replay_as_traced starts afresh; look at the manifest)
	m=$T/tgt/.ioreel-prepared
	! grep -q "^d ${A#/}/D/current$" "$m" || fail "$ev: current prepared a directory"
	if [ $ev = readlink ]; then
		grep -q "^l .* ${A#/}/D/current -> v1$" "$m" || fail "$ev: current not -> v1: $(cat "$m")"
		grep -q "^f 700 ${A#/}/D/v1/file$" "$m" || fail "$ev: v1/file not prepared: $(cat "$m")"
	else
		grep -q "^l .* ${A#/}/D/current -> .current.ioreel-pre$" "$m" ||
			fail "$ev: current not a symlink to a stand-in: $(cat "$m")"
		grep -q "^f 700 ${A#/}/D/.current.ioreel-pre/file$" "$m" ||
			fail "$ev: the stand-in's file not prepared: $(cat "$m")"
	fi
done
[ ! -e "$A" ] || fail "the replay wrote outside its target"
echo PASS
