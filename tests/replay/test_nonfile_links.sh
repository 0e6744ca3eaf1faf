#!/bin/bash
# A trace recorded before the capture named the file behind /dev/stdout, /dev/fd/N,
# /proc/self/fd/N, /proc/self/cwd, /proc/self/exe (capture_conv.c, proc_link_path) has file
# I/O under those names: `tar cf /dev/stdout > out.tar` wrote 360 times through an fd of kind
# reg opened as "/dev/stdout". It is not think time: each op of such an fd (its dup's too) is
# counted as not replayed, with why, where they were "non-file skipped" and the summary said
# 0 not replayed. What is no storage stays skipped: /proc/self/fd listed (a /proc directory),
# /proc/self/stat read (reg by its inode), /dev/stdin opened on a pipe (fifo).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
2 2 10 20 openat path=/proc/self/cwd flags=O_RDONLY|O_DIRECTORY ret=9 kind=dir
2 2 30 40 getdents64 fd=9 path=/proc/self/cwd len=4096 ret=48 kind=dir
2 2 50 60 close fd=9 path=/proc/self/cwd ret=0 kind=dir
2 2 100 110 openat path=/dev/stdout flags=O_WRONLY|O_CREAT|O_TRUNC mode=0666 ret=4 kind=reg aux=1
2 2 120 130 write fd=4 path=/dev/stdout len=10240 ret=10240
2 2 140 150 write fd=4 path=/dev/stdout off=10240 len=10240 ret=10240
2 2 160 170 dup fd=4 path=/dev/stdout ret=5
2 2 180 190 write fd=5 path=/dev/stdout off=20480 len=10240 ret=10240
2 2 200 210 close fd=4 path=/dev/stdout ret=0
2 2 220 230 close fd=5 path=/dev/stdout ret=0
2 2 300 310 openat path=/proc/self/fd flags=O_RDONLY|O_DIRECTORY ret=6 kind=dir
2 2 320 330 getdents64 fd=6 path=/proc/self/fd len=4096 ret=96 kind=dir
2 2 340 350 close fd=6 path=/proc/self/fd ret=0 kind=dir
2 2 400 410 openat path=/proc/self/stat flags=O_RDONLY ret=7 kind=reg aux=1
2 2 420 430 read fd=7 path=/proc/self/stat len=1024 ret=300
2 2 440 450 close fd=7 path=/proc/self/stat ret=0
2 2 500 510 openat path=/dev/stdin flags=O_RDONLY ret=8 kind=fifo
2 2 520 530 read fd=8 path=/dev/stdin len=4096 ret=100 kind=fifo
2 2 540 550 close fd=8 path=/dev/stdin ret=0 kind=fifo
2 2 600 610 openat path=/proc/self/exe flags=O_RDONLY|O_CLOEXEC ret=11 kind=reg aux=40001
2 2 620 630 read fd=11 path=/proc/self/exe len=4096 ret=4096
2 2 640 650 close fd=11 path=/proc/self/exe ret=0
2 2 700 710 openat path=/d/real flags=O_WRONLY|O_CREAT mode=0644 ret=10
2 2 720 730 write fd=10 path=/d/real len=100 ret=100
2 2 740 750 close fd=10 path=/d/real ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" ||
	fail "outcomes differ: $(cat "$T/out")"
# the 7 ops of /dev/stdout's fds, the 3 of the directory opened through /proc/self/cwd and
# the 3 of the program's binary read through /proc/self/exe
grep -q "ops not replayed: 13$" "$T/out" ||
	fail "want 13 ops not replayed: $(grep -A4 "not replayed" "$T/out")"
grep -q "ops: 25 in trace, 3 replayed by 1 thread, 9 non-file skipped" "$T/out" ||
	fail "want 3 replayed, 9 non-file skipped: $(grep "ops:" "$T/out")"
grep -q "openat /dev/stdout (pid 2 tid 2 fd -1): regular file opened through this /dev or /proc link" "$T/out" ||
	fail "the reason is not said: $(grep -A4 "not replayed" "$T/out")"
grep -q "openat /proc/self/cwd (pid 2 tid 2 fd -1): directory opened through this /dev or /proc link" "$T/out" ||
	fail "the directory's reason is not said: $(cat "$T/out")"
[ "$(stat -c %s "$T/tgt/d/real")" = 100 ] || fail "/d/real not written"
echo PASS
