#!/bin/bash
# What was in a directory the application renamed is prepared under the directory's old name
# (replay_fileset.c, rename__origin): `mv olddir newdir`, then the files in it used by their
# new names. The file set took everything below a rename's new name for the application's
# own, so none of it was prepared and each of those ops failed with ENOENT (stress seed 2053).
# Cases: a file read by its new name; a directory only implied (a file made in it); a chain of
# two renames; `rm -rf` of a renamed directory; and, left alone, a directory the application
# made itself, then renamed (nothing of it prepared: an O_EXCL create in it still succeeds);
# and a name a rename made as a file, then removed and made again by mkdir: what is made in
# it is not in the file renamed there (stress seed 3064: that file prepared as a directory);
# a directory renamed away and back, then a file in it read.
source "$(dirname "$0")/lib.sh"

mk t <<'EOF'
1 1 10 11 stat path=/d/old/keep ret=0
1 1 20 21 rename path=/d/old path2=/d/new ret=0
1 1 30 31 openat path=/d/new/f flags=O_RDONLY ret=3
1 1 32 33 pread64 fd=3 path=/d/new/f off=8192 len=4096 ret=4096
1 1 34 35 close fd=3 ret=0
1 1 40 41 openat path=/d/new/sub/made flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
1 1 42 43 close fd=3 ret=0
1 1 50 51 rename path=/d/a path2=/d/b ret=0
1 1 52 53 rename path=/d/b path2=/d/c ret=0
1 1 54 55 openat path=/d/c/x/y flags=O_RDONLY ret=3
1 1 56 57 read fd=3 path=/d/c/x/y off=0 len=100 ret=100
1 1 58 59 close fd=3 ret=0
1 1 60 61 rename path=/d/gone path2=/d/trash ret=0
1 1 62 63 unlink path=/d/trash/one ret=0
1 1 64 65 unlink path=/d/trash/two ret=0
1 1 66 67 rmdir path=/d/trash ret=0
1 1 70 71 mkdir path=/d/mine mode=0755 ret=0
1 1 72 73 openat path=/d/mine/z flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
1 1 74 75 close fd=3 ret=0
1 1 76 77 rename path=/d/mine path2=/d/mine2 ret=0
1 1 78 79 openat path=/d/mine2/z flags=O_RDONLY ret=3
1 1 80 81 close fd=3 ret=0
1 1 90 91 openat path=/d/pf flags=O_RDONLY ret=3
1 1 92 93 pread64 fd=3 path=/d/pf off=0 len=10 ret=10
1 1 94 95 close fd=3 ret=0
1 1 96 97 rename path=/d/pf path2=/d/slot ret=0
1 1 98 99 unlink path=/d/slot ret=0
1 1 100 101 mkdir path=/d/slot mode=0755 ret=0
1 1 102 103 mkdir path=/d/slot/k mode=0755 ret=0
1 1 110 111 rename path=/d/rt path2=/d/rt2 ret=0
1 1 112 113 rename path=/d/rt2 path2=/d/rt ret=0
1 1 114 115 openat path=/d/rt/f flags=O_RDONLY ret=3
1 1 116 117 read fd=3 path=/d/rt/f off=0 len=300 ret=300
1 1 118 119 close fd=3 ret=0
EOF

for mode in original afap; do
	replay_as_traced $mode "an op below a renamed directory failed"
	root="$T/tgt"
	check_size "$root/d/new/f" 12288 "$mode: read up to 12 KiB by its new name"
	[ -d "$root/d/new/sub" ] && [ -f "$root/d/new/sub/made" ] || fail "$mode: new/sub/made missing"
	check_size "$root/d/c/x/y" 100 "$mode: through two renames"
	[ ! -e "$root/d/trash" ] && [ ! -e "$root/d/gone" ] || fail "$mode: rm -rf of a renamed directory left it"
	[ -f "$root/d/mine2/z" ] && [ ! -e "$root/d/mine" ] || fail "$mode: the application's own directory"
	[ -d "$root/d/slot/k" ] && [ ! -e "$root/d/pf" ] || fail "$mode: a name made again by mkdir"
	check_size "$root/d/rt/f" 300 "$mode: in a directory renamed away and back"
	[ ! -e "$root/d/old" ] && [ ! -e "$root/d/a" ] && [ ! -e "$root/d/b" ] ||
		fail "$mode: old names left behind: $(find "$root/d" | sort)"
done
echo PASS
