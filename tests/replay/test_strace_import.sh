#!/bin/bash
# End to end from a real program: a small workload (wl_files.py: threads reading a file that
# existed, writing a new one, renaming it, a pipe and /proc on the side) is recorded with strace,
# imported with "ioreel import strace", and replayed under a target: its files come out
# with the right sizes, non-file I/O is skipped, and every replayed op has the outcome
# it had originally.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null && command -v python3 >/dev/null || exit 77

mkdir -p "$T/app/data"
head -c 300000 /dev/urandom >"$T/app/data/in.bin"
strace -f -ttt -T -y -o "$T/app.strace" python3 "$HERE/wl_files.py" "$T/app/data" ||
	fail "workload"
"$IOREEL" import strace "$T/app.strace" -o "$T/app.reel" 2>"$T/imp.err" || fail "import: $(cat "$T/imp.err")"
check_wl_files_replay "$T/app.reel"
echo PASS
