#!/bin/bash
# A file the trace knows only through ops on an fd open before the capture that tell nothing
# of its bytes (fstat, fsync, fadvise): it was there, and is prepared. Subversion's commands,
# recorded from start, each fstat their stderr, a file the shell had opened: the file set left
# it out and every such fstat (127 in a trial of 60 commits) was "not replayed: cannot open
# its path". A directory so known (its fd_kind) is prepared as a directory.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 fstat fd=2 path=/d/err.log ret=0
100 100 200 210 fsync fd=2 path=/d/err.log ret=0
101 101 300 310 fstat fd=2 path=/d/err.log ret=0
101 101 400 410 fadvise64 fd=4 path=/d/data off=0 len=0 ret=0
101 101 500 510 fstat fd=5 path=/d/sub kind=dir ret=0
101 101 600 610 fsync fd=5 path=/d/sub kind=dir ret=0
SPEC
for mode in original afap; do
	replay_as_traced $mode "an fd open before the capture, only fstat'd, was not prepared"
	grep -q "ops not replayed: 0" "$T/out" || {
		cat "$T/out"
		fail "timing $mode: ops not replayed"
	}
done
[ -f "$T/tgt/d/err.log" ] || fail "err.log not prepared as a file"
[ -f "$T/tgt/d/data" ] || fail "data not prepared as a file"
[ -d "$T/tgt/d/sub" ] || fail "sub not prepared as a directory"
echo PASS
