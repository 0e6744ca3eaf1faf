#!/bin/bash
# A directory's kind comes from the first op that tells it, even when an op that tells none
# (a stat) decided before that the name existed. The kind was the first op's only, so a
# directory that was stat'd, then opened as one, with no traced path below it, was prepared
# as a file and its open failed with ENOTDIR (apt-get: stat("/tmp"), then
# open("/tmp", O_TMPFILE|O_RDWR) and writes to the unnamed file; etcd and dpkg: a directory
# opened to fsync it):
# - /m/tmp: stat, then open with O_TMPFILE (which carries O_DIRECTORY's bit), write, close;
# - /m/d: stat, then open with O_DIRECTORY, fsync, close;
# - /m/e: stat, then a plain open whose fd is a directory (Go's os.Open), fsync, close.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 stat path=/m/tmp ret=0
1 1 2 3 openat path=/m/tmp flags=O_RDWR|O_TMPFILE|O_CLOEXEC mode=0600 ret=3
1 1 4 5 write fd=3 off=0 len=4096 ret=4096
1 1 6 7 close fd=3 ret=0
1 1 10 11 stat path=/m/d ret=0
1 1 12 13 openat path=/m/d flags=O_RDONLY|O_DIRECTORY ret=3 kind=dir
1 1 14 15 fsync fd=3 ret=0 kind=dir
1 1 16 17 close fd=3 ret=0 kind=dir
1 1 20 21 stat path=/m/e ret=0
1 1 22 23 openat path=/m/e flags=O_RDONLY|O_CLOEXEC ret=3 kind=dir
1 1 24 25 fsync fd=3 ret=0 kind=dir
1 1 26 27 close fd=3 ret=0 kind=dir
SPEC
replay_as_traced original "an outcome differs"
grep -q "ops not replayed: 0" "$T/out" || fail "ops not replayed: $(cat "$T/out")"
for d in tmp d e; do
	[ -d "$T/tgt/m/$d" ] || fail "m/$d not prepared as a directory: $(cat "$T/tgt/.ioreel-prepared")"
done
echo PASS
