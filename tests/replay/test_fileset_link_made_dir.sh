#!/bin/bash
# A symlink the application made, then removed and made a directory again, leads nowhere for
# what the trace first names below that name afterwards: `ln -s p0 n5; ... rm n5; mkdir n5;
# mv olddir n5/sub`, then n5/sub/f read. The file set followed the old link's content for
# n5/sub/f as well (replay_fileset_links.c, through__links) and prepared p0/sub/f, so p0, a file
# the trace stats and reads, was taken for a directory: "cannot prepare .../p0/sub: Not a
# directory", nothing replayed (stress seed 5334). What was in the renamed directory is
# prepared under its old name (rename__origin), p0 as the file it was.
source "$(dirname "$0")/lib.sh"

mk t <<'EOF'
1 1 10 11 openat path=/d/p0 flags=O_RDONLY ret=3
1 1 12 13 pread64 fd=3 path=/d/p0 off=0 len=200 ret=200
1 1 14 15 close fd=3 ret=0
1 1 20 21 symlink path=/d/n5 path2=p0 ret=0
1 1 30 31 openat path=/d/n5 flags=O_RDONLY ret=3
1 1 34 35 close fd=3 ret=0
1 1 40 41 unlink path=/d/n5 ret=0
1 1 50 51 mkdir path=/d/n5 mode=0755 ret=0
1 1 60 61 rename path=/d/old path2=/d/n5/sub ret=0
1 1 70 71 openat path=/d/n5/sub/f flags=O_RDONLY ret=3
1 1 72 73 pread64 fd=3 path=/d/n5/sub/f off=0 len=100 ret=100
1 1 74 75 close fd=3 ret=0
1 1 80 81 stat subop=8 path=/d/p0 ret=0
EOF

for mode in original afap; do
	replay_as_traced $mode "a path below a symlink made a directory again"
	root="$T/tgt"
	[ -f "$root/d/p0" ] || fail "$mode: p0 is not a file: $(find "$root/d" | sort)"
	check_size "$root/d/p0" 200 "$mode: p0 read"
	check_size "$root/d/n5/sub/f" 100 "$mode: read in the renamed directory"
	[ ! -e "$root/d/old" ] || fail "$mode: old left behind"
done
echo PASS
