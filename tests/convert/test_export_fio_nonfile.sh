#!/bin/bash
# ioreel export fio leaves out ops on /proc, /sys and /dev (but /dev/shm) as ioreel replay
# does, and counts them on stderr: a recording of fio held fio's disk-util reads of
# /sys/block/vda/stat, which the export laid out as ROOT/sys/block/vda/stat in a [prep] job
# and replayed as a job of their own. A file under /dev/shm is storage (tmpfs) and stays.
# usage: test_export_fio_nonfile.sh IOREEL REPLAY_MKTRACE
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$MKTRACE" "$dir/t.reel" <<'SPEC' || fail "mktrace"
100 100 0 10 openat path=/data/f flags=O_RDONLY ret=3
100 100 20 30 pread64 fd=3 off=0 len=4096 ret=4096
100 101 40 50 openat path=/sys/block/vda/stat flags=O_RDONLY ret=4
100 101 60 70 read fd=4 off=0 len=4096 ret=150
100 101 80 90 lseek fd=4 off=0 mode=0 ret=0
100 101 100 110 read fd=4 off=0 len=4096 ret=150
100 101 120 130 close fd=4 ret=0
100 101 140 150 pread64 fd=-1 path=/proc/self/stat off=0 len=1024 ret=300
100 101 160 170 newfstatat fd=-100 path=/dev/sda ret=0
100 102 200 210 openat path=/dev/shm/seg flags=O_RDWR ret=5
100 102 220 230 pwrite64 fd=5 off=0 len=8192 ret=8192
100 103 240 250 read fd=7 kind=fifo off=0 len=64 ret=64
SPEC
mkdir "$dir/x"
"$IOREEL" export fio "$dir/t.reel" -o "$dir/x/t" --root "$dir/root" 2> "$dir/err" ||
	fail "export exited $?: $(cat "$dir/err")"
R=$dir/root
# the two reads of the stat file, the /proc read, the stat of /dev/sda, the pipe read
grep -Eq 'left out 5 ops on /proc, /sys, /dev \(but /dev/shm\), pipes, sockets' "$dir/err" ||
	fail "stderr does not count the 5 non-file ops: $(cat "$dir/err")"
grep -q 'metadata ops' "$dir/err" && fail "non-file ops counted as metadata: $(cat "$dir/err")"
grep -Eq 'wrote 2 iolog\(s\) with 2 reads/writes' "$dir/err" || fail "stderr: $(cat "$dir/err")"
[ ! -e "$dir/x/t.101" ] && [ ! -e "$dir/x/t.103" ] || fail "an iolog for the non-file threads"
grep -q "/sys\|/proc\|=$R/dev/sda" "$dir/x/t.fio" && fail "job file names a non-file: $(cat "$dir/x/t.fio")"
grep -q "^filename=$R/dev/shm/seg\$" "$dir/x/t.fio" || fail "/dev/shm file not laid out: $(cat "$dir/x/t.fio")"
[ "$(grep -c '^read_iolog=' "$dir/x/t.fio")" = 2 ] || fail "want 2 jobs: $(cat "$dir/x/t.fio")"
grep -q "$R/dev/shm/seg write 0 8192" "$dir/x/t.102" || fail "the /dev/shm write: $(cat "$dir/x/t.102")"
echo PASS
