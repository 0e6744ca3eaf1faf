#!/bin/bash
# A lock take the original was refused is never held by the replay. Q's request ran while P
# held the lock, but spent long in the kernel after its check, so its record (exit order)
# comes after P's release: the replay finds the lock free. It says so (one outcome
# differing), but takes nothing: P's next take, granted in the original, is granted again
# (taken, Q's request refused it: two differing). Once with F_SETLK (asked with F_OFD_GETLK
# first), once with flock(LOCK_EX|LOCK_NB) (tried on the file opened again).
source "$(dirname "$0")/lib.sh"

# F_SETLK 6; F_RDLCK 0, F_WRLCK 1, F_UNLCK 2
mk fcntl <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
200 200 150 160 openat fd=-100 path=/d/f flags=O_RDWR ret=5
100 100 200 210 fcntl_lock fd=5 path=/d/f flags=6 mode=1 off=0 len=1 ret=0
100 100 400 410 fcntl_lock fd=5 path=/d/f flags=6 mode=2 off=0 len=1 ret=0
200 200 190 33000 fcntl_lock fd=5 path=/d/f flags=6 mode=1 off=0 len=1 ret=-EAGAIN
100 100 34000 34010 fcntl_lock fd=5 path=/d/f flags=6 mode=0 off=0 len=1 ret=0
100 100 35000 35010 close fd=5 path=/d/f ret=0
200 200 35100 35110 close fd=5 path=/d/f ret=0
SPEC
# LOCK_SH 1, LOCK_EX 2, LOCK_NB 4, LOCK_UN 8
mk flock <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
200 200 150 160 openat fd=-100 path=/d/f flags=O_RDONLY ret=5
100 100 200 210 flock fd=5 path=/d/f mode=2 ret=0
100 100 400 410 flock fd=5 path=/d/f mode=8 ret=0
200 200 190 33000 flock fd=5 path=/d/f mode=6 ret=-EAGAIN
100 100 34000 34010 flock fd=5 path=/d/f mode=5 ret=0
100 100 35000 35010 close fd=5 path=/d/f ret=0
200 200 35100 35110 close fd=5 path=/d/f ret=0
SPEC
for kind in fcntl flock; do
	for timing in original think afap; do
		rm -rf "$T/tgt"
		timeout -s KILL 60 "$IOREEL" replay "$T/$kind.reel" --target "$T/tgt" \
			--timing $timing -o "$T/r.reel" >"$T/out" 2>&1 ||
			fail "$kind, replay, timing $timing: $(cat "$T/out")"
		grep -q "outcomes differing from the original: 1$" "$T/out" &&
			grep -q "1 succeeded where the original failed" "$T/out" ||
			fail "$kind, timing $timing: $(grep -A6 'outcomes differing' "$T/out")"
	done
done
echo PASS
