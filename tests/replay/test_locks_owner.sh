#!/bin/bash
# Record locks belong to the process (F_SETLK & co.), and the replay is one process: it keeps
# the original's owners apart with one open file per trace process and file, so that
# - two threads of one process take the same write lock, one after the other (one owner);
# - a process's lock taken through one fd of a file is in the way of another process's;
# - closing any fd of the file drops the process's locks on it (its other fd still open):
#   the other process then takes the lock it was refused before;
# - F_GETLK says what is in the way: F_UNLCK once free (aux = type found + 1).
# Every op must end as it did in the original.
source "$(dirname "$0")/lib.sh"

# F_GETLK 5, F_SETLK 6; F_RDLCK 0, F_WRLCK 1, F_UNLCK 2
mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
100 100 120 130 openat fd=-100 path=/d/f flags=O_RDONLY ret=6
200 200 150 160 openat fd=-100 path=/d/f flags=O_RDWR ret=5
100 100 200 210 fcntl_lock fd=5 path=/d/f flags=6 mode=1 off=0 len=0 ret=0
100 101 300 310 fcntl_lock fd=5 path=/d/f flags=6 mode=1 off=4096 len=4096 ret=0
100 101 320 330 fcntl_lock fd=6 path=/d/f flags=6 mode=1 off=0 len=1 ret=-EBADF
200 200 400 410 fcntl_lock fd=5 path=/d/f flags=6 mode=1 off=8000 len=1 ret=-EAGAIN
200 200 450 460 fcntl_lock fd=5 path=/d/f flags=5 mode=2 off=0 len=1 aux=2 ret=0
100 100 500 510 close fd=6 path=/d/f ret=0
200 200 600 610 fcntl_lock fd=5 path=/d/f flags=5 mode=2 off=0 len=1 aux=3 ret=0
200 200 700 710 fcntl_lock fd=5 path=/d/f flags=6 mode=1 off=8000 len=1 ret=0
100 100 800 810 fcntl_lock fd=5 path=/d/f flags=6 mode=0 off=8000 len=1 ret=-EAGAIN
200 200 900 910 close fd=5 path=/d/f ret=0
100 100 1000 1010 fcntl_lock fd=5 path=/d/f flags=6 mode=0 off=8000 len=1 ret=0
100 100 1100 1110 close fd=5 path=/d/f ret=0
SPEC
for timing in original afap; do
	replay_as_traced $timing "a record lock met another owner than the original's"
	got=$("$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
print(" ".join(str(o["aux"]) for o in map(json.loads, sys.stdin)
               if o["op"] == "fcntl_lock" and o["flags"] == 5))')
	[ "$got" = "2 3" ] || fail "$timing: F_GETLK found '$got' (type + 1), want '2 3' (F_WRLCK, then F_UNLCK)"
done
echo PASS
