#!/bin/bash
# A memfd opened again through "/proc/self/fd/N" (systemd reads one back read-only so) is no
# storage: recorders since the memfd was non-file mark that open non-file too (kind other),
# but the recorders of 2026-12-02 between the two recorded it as a regular file under the
# /proc name, and a replay counted its ops as "not replayed", not as the non-file think time
# they are. Such a recorder named the file of every fd whose path it knew (it writes meta
# capture.paths_too_long), and knew every path (the count 0): what it left as
# "/proc/self/fd/N" was a memfd. Recordings older still, and strace imports, name the memfd
# "/memfd:NAME": non-file too, and nothing of that name is prepared. What the trace cannot
# tell stays counted as not replayed: a /dev/fd/N open (those recorders kept every /dev name,
# a file's too), and a /proc/self/fd/N open in a trace without the count.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
meta tool ioreel record 0.1
meta capture.paths_too_long 0
2 2 10 20 openat path=/proc/self/fd/5 flags=O_RDONLY|O_CLOEXEC ret=6 kind=reg aux=1
2 2 30 40 fstat fd=6 path=/proc/self/fd/5 ret=0
2 2 50 60 read fd=6 path=/proc/self/fd/5 len=4096 ret=100
2 2 70 80 close fd=6 path=/proc/self/fd/5 ret=0
2 2 100 110 openat path=/proc/2/fd/7 flags=O_RDONLY ret=6 kind=reg aux=1
2 2 120 130 read fd=6 path=/proc/2/fd/7 len=4096 ret=10
2 2 140 150 close fd=6 path=/proc/2/fd/7 ret=0
2 2 200 210 openat path=/memfd:cfg flags=O_RDWR ret=8 kind=reg aux=1
2 2 220 230 write fd=8 path=/memfd:cfg len=300 ret=300
2 2 240 250 pread64 fd=8 path=/memfd:cfg off=0 len=300 ret=300
2 2 260 270 close fd=8 path=/memfd:cfg ret=0
2 2 300 310 openat path=/dev/fd/9 flags=O_RDONLY ret=6 kind=reg aux=1
2 2 320 330 read fd=6 path=/dev/fd/9 len=4096 ret=10
2 2 340 350 close fd=6 path=/dev/fd/9 ret=0
2 2 700 710 openat path=/d/real flags=O_WRONLY|O_CREAT mode=0644 ret=10
2 2 720 730 write fd=10 path=/d/real len=100 ret=100
2 2 740 750 close fd=10 path=/d/real ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" ||
	fail "outcomes differ: $(cat "$T/out")"
# the 3 ops of /dev/fd/9's fd alone: the memfds' 11 are non-file
grep -q "ops not replayed: 3$" "$T/out" ||
	fail "want 3 ops not replayed (/dev/fd/9's): $(grep -A4 "not replayed" "$T/out")"
grep -q "ops: 17 in trace, 3 replayed by 1 thread, 11 non-file skipped" "$T/out" ||
	fail "want the memfds' 11 ops non-file skipped: $(grep "ops:" "$T/out")"
[ -e "$T/tgt/memfd:cfg" ] && fail "a file was made for the memfd"
[ "$(stat -c %s "$T/tgt/d/real")" = 100 ] || fail "/d/real not written"

# without the count (older recorders, imports), fd 5 may have been a file's: not replayed
grep -v "^meta capture.paths_too_long" <<'SPEC' | mk old
2 2 10 20 openat path=/proc/self/fd/5 flags=O_RDONLY ret=6 kind=reg aux=1
2 2 50 60 read fd=6 path=/proc/self/fd/5 len=4096 ret=100
2 2 70 80 close fd=6 path=/proc/self/fd/5 ret=0
SPEC
"$IOREEL" replay "$T/old.reel" --target "$T/tgt2" -T afap -o "$T/r2.reel" >"$T/out2" 2>&1 ||
	fail "replay old: $(cat "$T/out2")"
grep -q "ops not replayed: 3$" "$T/out2" ||
	fail "old trace: want 3 ops not replayed: $(grep -A4 "not replayed" "$T/out2")"
echo PASS
