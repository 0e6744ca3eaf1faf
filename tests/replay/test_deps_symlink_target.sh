#!/bin/bash
# A path op that follows a symlink waits, across threads, for what last made, moved or removed
# the file the link leads to, as it does for that file's own name. Thread 101 reads /d/t and,
# after 2000 other ops, removes it; thread 102 then stats /d/ln, a symlink there before the
# capture whose content a readlink read ("t"), and finds nothing (ENOENT, the link dangles),
# then, after thread 101 made /d/t again, opens it through the link. borgbackup between two
# runs of a script that deletes files: as fast as possible the stat of the link ran before
# the other process's unlink of its target and succeeded (1 differing outcome in every afap
# replay). lstat of the link itself (AT_SYMLINK_NOFOLLOW) finds it whatever the order.
# Asserts no outcome differs, in every timing mode.
source "$(dirname "$0")/lib.sh"

{
	echo "100 102 0 0 stat path=/x ret=-ENOENT"
	echo "100 102 1 2 readlink path=/d/ln path2=t len=4096 ret=1"
	echo "100 101 3 4 openat path=/d/t flags=O_RDONLY ret=3"
	echo "100 101 5 6 read fd=3 path=/d/t off=0 len=100 ret=100"
	echo "100 101 7 8 close fd=3 ret=0"
	for k in $(seq 1 2000); do
		echo "100 101 $((10 + k)) $((10 + k)) stat path=/y ret=-ENOENT"
	done
	echo "100 101 2100 2101 unlink path=/d/t ret=0"
	echo "100 102 2102 2103 newfstatat fd=-100 path=/d/ln ret=-ENOENT"
	echo "100 102 2104 2105 newfstatat fd=-100 path=/d/ln flags=0x100 ret=0"
	for k in $(seq 1 2000); do
		echo "100 101 $((2200 + k)) $((2200 + k)) stat path=/y ret=-ENOENT"
	done
	echo "100 101 4300 4301 openat path=/d/t flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3"
	echo "100 101 4302 4303 close fd=3 ret=0"
	echo "100 102 4304 4305 openat path=/d/ln flags=O_RDONLY ret=4"
	echo "100 102 4306 4307 close fd=4 ret=0"
} | mk t

for mode in afap think original; do
	replay_as_traced $mode "an op through a symlink ran before what changed the file it leads to"
	[ -L "$T/tgt/d/ln" ] && [ -f "$T/tgt/d/t" ] || fail "timing $mode: /d/ln or /d/t missing"
done
echo PASS
