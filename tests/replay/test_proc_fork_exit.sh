#!/bin/bash
# Format 1.4's process records, replayed (replay_proc.c):
# - fork: the child's fds are its parent's open files. Its flock through the inherited fd is
#   the parent's lock already (granted, where a file of its own would be refused), and its
#   close of that fd leaves the parent's lock in place.
# - exit: a process's fds are closed when it exits, not after its last op: a lock it held
#   until its exit refuses another process's request before, and a blocking request waits
#   for the exit (40 ms in the original, at least 30 ms replayed in original timing).
# - execve: the close-on-exec fds are closed (their flock released), the others kept.
# - record locks (fcntl) belong to the process: a child does not inherit its parent's, and
#   meets them as another owner's; they go at the owner's exit.
source "$(dirname "$0")/lib.sh"

# LOCK_EX 2, LOCK_NB 4. P=100 forks C=200; Q=300 meets P's lock.
mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
300 300 150 160 openat fd=-100 path=/d/f flags=O_RDWR ret=5
100 100 200 210 flock fd=5 path=/d/f mode=2 ret=0
100 100 300 300 fork ret=200
200 200 400 410 flock fd=5 path=/d/f mode=6 ret=0
200 200 500 510 close fd=5 path=/d/f ret=0
200 200 550 550 exit ret=0
300 300 600 610 flock fd=5 path=/d/f mode=6 ret=-EAGAIN
300 300 20000 60020 flock fd=5 path=/d/f mode=2 ret=0
100 100 60000 60000 exit ret=768
300 300 60100 60110 close fd=5 path=/d/f ret=0
300 300 60200 60200 exit ret=0
SPEC
for timing in original think afap; do
	replay_as_traced $timing "a flock met another state of the lock than the original's"
	[ "$timing" = original ] || continue
	# the blocking flock waited for P's exit (40 ms after it began, in the original): it
	# ended no sooner than P's exit did in the replay. A flock that woke up past that exit
	# (a machine that held it back 40 ms) cannot tell, and says so.
	"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
flock = [o for o in ops if o["pid"] == 300 and o["op"] == "flock" and o["mode"] == 2]
exit = [o for o in ops if o["pid"] == 100 and o["op"] == "exit"]
if len(flock) != 1 or len(exit) != 1:
    sys.exit("want one blocking flock of pid 300 and one exit of pid 100 in the result")
f, e = flock[0], exit[0]
if f["start_ns"] >= e["start_ns"]:
    print("blocking flock began after P exited (late by %d ns): cannot tell" %
          (f["start_ns"] - f["sched_ns"]))
elif f["end_ns"] < e["start_ns"]:
    sys.exit("the blocking flock ended %d ns before P exited: the exit did not hold the lock" %
             (e["start_ns"] - f["end_ns"]))
else:
    print("blocking flock waited %d ns, until P exited (40 ms in the original)" %
          (f["end_ns"] - f["start_ns"]))' || fail "timing $timing: P's exit and the blocking flock"
done

# execve: /d/a open close-on-exec, /d/b not; both locked by P; after P's execve, Q gets
# /d/a's lock and is refused /d/b's
mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/a flags=O_RDWR|O_CREAT|O_CLOEXEC mode=0644 ret=5
100 100 120 130 openat fd=-100 path=/d/b flags=O_RDWR|O_CREAT mode=0644 ret=6
100 100 140 150 flock fd=5 path=/d/a mode=2 ret=0
100 100 160 170 flock fd=6 path=/d/b mode=2 ret=0
300 300 180 190 openat fd=-100 path=/d/a flags=O_RDWR ret=5
300 300 200 210 openat fd=-100 path=/d/b flags=O_RDWR ret=6
300 300 300 310 flock fd=5 path=/d/a mode=6 ret=-EAGAIN
300 300 320 330 flock fd=6 path=/d/b mode=6 ret=-EAGAIN
100 100 400 400 execve ret=0
300 300 500 510 flock fd=5 path=/d/a mode=6 ret=0
300 300 520 530 flock fd=6 path=/d/b mode=6 ret=-EAGAIN
100 100 600 610 pwrite64 fd=6 path=/d/b off=0 len=100 ret=100
100 100 700 700 exit ret=0
300 300 800 810 flock fd=6 path=/d/b mode=6 ret=0
SPEC
for timing in original think afap; do
	replay_as_traced $timing "execve kept or closed another fd than the original's"
done
# F_SETLK 6, F_SETLKW 7, F_WRLCK 1
mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/g flags=O_RDWR|O_CREAT mode=0644 ret=5
300 300 150 160 openat fd=-100 path=/d/g flags=O_RDWR ret=5
100 100 200 210 fcntl_lock fd=5 path=/d/g flags=6 mode=1 off=0 len=100 ret=0
100 100 300 300 fork ret=200
200 200 400 410 fcntl_lock fd=5 path=/d/g flags=6 mode=1 off=50 len=10 ret=-EAGAIN
200 200 420 430 fcntl_lock fd=5 path=/d/g flags=6 mode=1 off=100 len=10 ret=0
200 200 550 550 exit ret=0
300 300 600 610 fcntl_lock fd=5 path=/d/g flags=6 mode=1 off=105 len=1 ret=0
300 300 20000 60020 fcntl_lock fd=5 path=/d/g flags=7 mode=1 off=0 len=1 ret=0
100 100 60000 60000 exit ret=0
SPEC
for timing in original think afap; do
	replay_as_traced $timing "a record lock met another state than the original's"
done

# a pid used again: the second child 200 shares its parent's flock through the fd it
# inherits, as the first did; its first op waits for its own fork, not the first child's
mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
300 300 150 160 openat fd=-100 path=/d/f flags=O_RDWR ret=5
100 100 200 210 flock fd=5 path=/d/f mode=2 ret=0
100 100 300 300 fork ret=200
200 200 400 410 flock fd=5 path=/d/f mode=6 ret=0
200 200 500 500 exit ret=0
100 100 5000 5000 fork ret=200
200 200 5100 5110 flock fd=5 path=/d/f mode=6 ret=0
200 200 5200 5200 exit ret=0
300 300 5300 5310 flock fd=5 path=/d/f mode=6 ret=-EAGAIN
100 100 6000 6000 exit ret=0
300 300 6100 6110 flock fd=5 path=/d/f mode=6 ret=0
SPEC
for timing in original think afap; do
	replay_as_traced $timing "a child of a pid used again met another state of the lock"
done
echo PASS
