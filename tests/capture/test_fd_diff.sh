#!/bin/bash
# The capture against strace on the fd table's edge cases: fd_torture (dup family, close_range,
# dirfds, chdir/fchdir, renames and unlinks of open files and directories, threads on one fd,
# fork, clone(CLONE_FILES), vfork + execve, vectors and flags, O_APPEND, failed ops) recorded
# by "ioreel record" and, in the same directory afresh, by "strace -f -ttt -T -y", imported.
# fd_diff.py compares the two traces op by op and both with what the kernel did; the
# differences it allows are listed, with their reasons, at its top.
source "$(dirname "$0")/lib.sh"
TORTURE=$3
HERE=$(dirname "$0")
command -v strace > /dev/null || { echo "FAIL: strace is needed (tests/setup-deps.sh)"; exit 1; }

# skipped only when the probes cannot be loaded here at all
"$IOREEL" record -q -o "$dir/probe.reel" -- true 2> "$dir/probe.err" || {
	echo "SKIP: BPF cannot be loaded: $(cat "$dir/probe.err")"
	exit 77
}
D=$dir/d
mkdir "$D" || exit 1
"$TORTURE" "$D" || { echo "FAIL: fd_torture failed on its own"; exit 1; }
rm -rf "$D" && mkdir "$D" || exit 1
"$IOREEL" record -q -o "$dir/rec.reel" -- "$TORTURE" "$D" ||
	{ echo "FAIL: record exited $?"; exit 1; }
rm -rf "$D" && mkdir "$D" || exit 1
strace -f -ttt -T -y -o "$dir/t.strace" "$TORTURE" "$D" ||
	{ echo "FAIL: fd_torture under strace failed"; exit 1; }
"$IOREEL" import strace "$dir/t.strace" -o "$dir/st.reel" > /dev/null 2>&1 ||
	{ echo "FAIL: import strace"; exit 1; }
for t in rec st; do
	"$IOREEL" dump --format jsonl "$dir/$t.reel" > "$dir/$t.jsonl" || { echo "FAIL: dump $t"; exit 1; }
done
python3 "$HERE/fd_diff.py" "$dir/rec.jsonl" "$dir/st.jsonl" "$D" || exit 1
echo PASS
