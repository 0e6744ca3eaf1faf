#!/bin/bash
# End to end from a real program: a small workload (wl_files.py: threads reading a file that
# existed, writing a new one, renaming it, a pipe and /proc on the side) is recorded with
# "ioreel record" (eBPF), and replayed under a target: its files come out
# with the right sizes, non-file I/O is skipped, and every replayed op has the outcome
# it had originally.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || exit 77

mkdir -p "$T/app/data"
head -c 300000 /dev/urandom >"$T/app/data/in.bin"
# no BPF here (not root, no tracepoints): skip
"$IOREEL" record -o "$T/app.reel" -- python3 "$HERE/wl_files.py" "$T/app/data" \
	>"$T/rec.out" 2>&1 || exit 77
check_wl_files_replay "$T/app.reel"
echo PASS
