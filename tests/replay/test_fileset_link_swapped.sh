#!/bin/bash
# A symlink the application swapped for another (ln -s v2 tmp; mv tmp cur, over the link cur;
# or rm cur; ln -s v2 cur), or one there before that it removed and made again: each path
# below the name leads where the link standing when the path was named led. The file set kept
# one "symlink" mark and one content per name, the last made: what was named below cur before
# the swap, and everything below a link a rename made, was not prepared (the open failed
# ENOENT), and a rename's link was not followed at all (its new name taken for made).
source "$(dirname "$0")/lib.sh"

# each case: a trace, then the files the replay must find prepared, "path size" each
check_case() {
	local name=$1 want=$2 f sz
	mk t
	for timing in original afap; do
		replay_as_traced $timing "$name"
		while read -r f sz; do
			check_size "$T/tgt/d/$f" "$sz" "$name, $timing"
		done <<<"$want"
	done
}

check_case "a link renamed over a link" "v1/a 100
v2/b 200" <<'SPEC'
1 1 10 11 symlink path=/d/cur path2=v1 ret=0
1 1 20 21 openat path=/d/cur/a flags=O_RDONLY ret=3
1 1 22 23 pread64 fd=3 off=0 len=100 ret=100
1 1 24 25 close fd=3 ret=0
1 1 30 31 symlink path=/d/tmp path2=v2 ret=0
1 1 40 41 rename path=/d/tmp path2=/d/cur ret=0
1 1 50 51 openat path=/d/cur/b flags=O_RDONLY ret=3
1 1 52 53 pread64 fd=3 off=0 len=200 ret=200
1 1 54 55 close fd=3 ret=0
SPEC

check_case "a link removed and made again" "v1/a 100
v2/b 200" <<'SPEC'
1 1 10 11 symlink path=/d/cur path2=v1 ret=0
1 1 20 21 openat path=/d/cur/a flags=O_RDONLY ret=3
1 1 22 23 pread64 fd=3 off=0 len=100 ret=100
1 1 24 25 close fd=3 ret=0
1 1 30 31 unlink path=/d/cur ret=0
1 1 40 41 symlink path=/d/cur path2=v2 ret=0
1 1 50 51 openat path=/d/cur/b flags=O_RDONLY ret=3
1 1 52 53 pread64 fd=3 off=0 len=200 ret=200
1 1 54 55 close fd=3 ret=0
SPEC

# one path named below both links: where each led, as large as read by that name under either
check_case "a path named under both links" "v1/x 200
v2/x 200" <<'SPEC'
1 1 10 11 symlink path=/d/cur path2=v1 ret=0
1 1 20 21 openat path=/d/cur/x flags=O_RDONLY ret=3
1 1 22 23 pread64 fd=3 off=0 len=100 ret=100
1 1 24 25 close fd=3 ret=0
1 1 30 31 symlink path=/d/tmp path2=v2 ret=0
1 1 40 41 rename path=/d/tmp path2=/d/cur ret=0
1 1 50 51 openat path=/d/cur/x flags=O_RDONLY ret=3
1 1 52 53 pread64 fd=3 off=0 len=200 ret=200
1 1 54 55 close fd=3 ret=0
SPEC

# the link itself opened and read, by the name a rename gave it; an fd opened through the
# old link reads what it led to after the swap
check_case "a link renamed into place, opened itself" "v1 300
v2 400" <<'SPEC'
1 1 10 11 symlink path=/d/cur path2=v1 ret=0
1 1 12 13 openat path=/d/cur flags=O_RDONLY ret=4
1 1 30 31 symlink path=/d/tmp path2=v2 ret=0
1 1 40 41 rename path=/d/tmp path2=/d/cur ret=0
1 1 50 51 openat path=/d/cur flags=O_RDONLY ret=3
1 1 52 53 pread64 fd=3 off=0 len=400 ret=400
1 1 54 55 close fd=3 ret=0
1 1 60 61 pread64 fd=4 off=0 len=300 ret=300
1 1 62 63 close fd=4 ret=0
SPEC

# a symlink there before the capture (its content read), removed and made again
check_case "a link there before, made again" "v1/a 100
v2/b 200" <<'SPEC'
1 1 5 6 readlink path=/d/cur path2=v1 len=64 ret=2
1 1 20 21 openat path=/d/cur/a flags=O_RDONLY ret=3
1 1 22 23 pread64 fd=3 off=0 len=100 ret=100
1 1 24 25 close fd=3 ret=0
1 1 30 31 unlink path=/d/cur ret=0
1 1 40 41 symlink path=/d/cur path2=v2 ret=0
1 1 50 51 openat path=/d/cur/b flags=O_RDONLY ret=3
1 1 52 53 pread64 fd=3 off=0 len=200 ret=200
1 1 54 55 close fd=3 ret=0
SPEC
echo PASS
