#!/bin/bash
# An fd a process got from its parent (the trace has no forks) is opened by its name when first
# used, not before time 0 as one open before the capture whose name went is: a process that
# began after the name was made anew holds the new file. A shell's "rm -rf d; mkdir d;
# head -c 8192 ... > d/f": head's stdout was opened early, on the f that rm removed, so its
# write went there and every reader of the new f found it empty (a recorded shell loop: 900
# short reads and copies, in every timing mode).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 unlinkat fd=-100 path=/d/in/f ret=0
100 100 120 130 unlinkat fd=-100 path=/d/in flags=AT_REMOVEDIR ret=0
101 101 200 210 mkdir path=/d/in mode=0755 ret=0
102 102 300 310 openat fd=-100 path=/d/in/f flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=3
102 102 320 321 dup2 fd=3 fd2=1 path=/d/in/f ret=1
102 102 330 331 close fd=3 path=/d/in/f ret=0
103 103 400 401 fstat fd=1 path=/d/in/f ret=0
103 103 410 420 write fd=1 path=/d/in/f off=0 len=8192 ret=8192
103 103 430 431 close fd=1 path=/d/in/f ret=0
104 104 500 510 openat fd=-100 path=/d/in/f flags=O_RDONLY ret=3
104 104 520 530 read fd=3 path=/d/in/f off=0 len=8192 ret=8192
SPEC
for timing in original afap; do
	replay_as_traced "$timing" "the child's write through its inherited fd went elsewhere"
	check_size "$T/tgt/d/in/f" 8192 "timing $timing"
done
echo PASS
