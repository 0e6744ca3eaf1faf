#!/bin/bash
# An fd open before the capture whose name the application removes before it first uses the
# fd: Firebird's server, recorded with -p, unlinks its lock file (fb_lock_*) by name at
# detach and only then fstats and closes the fd it had held since attach. The replay opened
# such fds by name when first used, after the unlink: "cannot open its path", the fstat and
# the close not replayed. It opens them before time 0, while the name still holds the file.
# Also a name made again after the unlink (the fd keeps the old file), and another process.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
meta capture.fd_sizes 100:5:4096 100:7:100 200:3:4096
100 100 100 110 unlink path=/d/lock ret=0
100 101 200 210 fstat fd=5 path=/d/lock ret=0
100 101 300 310 pread64 fd=5 path=/d/lock off=0 len=4096 ret=4096
100 100 400 410 close fd=5 path=/d/lock ret=0
100 100 800 810 unlink path=/d/log ret=0
100 100 900 910 openat fd=-100 path=/d/log flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=8
100 100 1000 1010 pwrite64 fd=7 path=/d/log off=100 len=10 ret=10
100 100 1100 1110 close fd=8 path=/d/log ret=0
100 100 1200 1210 close fd=7 path=/d/log ret=0
200 200 1300 1310 fstat fd=3 path=/d/lock ret=0
SPEC
for mode in original afap; do
	replay_as_traced $mode "an fd open before the capture, its name removed first, was not opened"
	grep -q "ops not replayed: 0" "$T/out" || {
		cat "$T/out"
		fail "timing $mode: ops not replayed"
	}
done
# the log written through the old fd after its name was made again: the new file stays empty
check_size "$T/tgt/d/log" 0 "the file made again under the name"
echo PASS
