#!/bin/bash
# flock's lock belongs to the open file: a dup of the fd shares it (A takes it through fd 5
# and again, without blocking, through its dup fd 6), and it goes only when the last fd of
# that open file is closed (B is refused after A closes fd 5, gets it after A closes fd 6).
# The closes of a locked file are ordered with its lock ops, in every timing mode.
source "$(dirname "$0")/lib.sh"

# LOCK_EX 2, LOCK_NB 4
mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
100 100 120 130 dup fd=5 path=/d/f ret=6
200 200 150 160 openat fd=-100 path=/d/f flags=O_RDWR ret=5
100 100 200 210 flock fd=5 path=/d/f mode=2 ret=0
100 100 300 310 flock fd=6 path=/d/f mode=6 ret=0
200 200 400 410 flock fd=5 path=/d/f mode=6 ret=-EAGAIN
100 100 500 510 close fd=5 path=/d/f ret=0
200 200 600 610 flock fd=5 path=/d/f mode=6 ret=-EAGAIN
100 100 700 710 close fd=6 path=/d/f ret=0
200 200 800 810 flock fd=5 path=/d/f mode=6 ret=0
200 200 900 910 close fd=5 path=/d/f ret=0
SPEC
for timing in original think afap; do
	replay_as_traced $timing "a flock met another state of the lock than the original's"
done
echo PASS
