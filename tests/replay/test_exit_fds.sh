#!/bin/bash
# What a process left open is closed when it ends, as the kernel closes it at exit. A trace of
# many short processes that exit with files open (a shell's redirections, daemons) kept every
# one open in the replay until the end: past the replayer's fd limit its opens failed
# EMFILE, and each process's fd table stayed allocated (3174 processes of a shell script:
# a calloc and page faults per process). Here 600 processes each leave one file open; the
# replay runs with 256 fds.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
for i in range(600):
    pid, t = 1000 + i, i * 100
    print(f"{pid} {pid} {t} {t + 5} openat fd=-100 path=/d/o{i} flags=O_WRONLY|O_CREAT mode=0644 ret=3")
    print(f"{pid} {pid} {t + 6} {t + 9} pwrite64 fd=3 path=/d/o{i} off=0 len=4096 ret=4096")
PY
mk t <"$T/spec"
for timing in afap original; do
	(
		ulimit -n 256 || exit 77
		replay_as_traced "$timing" "600 processes exiting with a file open each, 256 fds"
	) || exit $?
done
echo PASS
