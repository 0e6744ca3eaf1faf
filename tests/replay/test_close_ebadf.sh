#!/bin/bash
# A close that failed with EBADF in the original (a double close, as apt-get's of its term.log
# fd, or of an fd never open) closed nothing there: it replays as a close that fails with
# EBADF, in the result and counted as the original's. It was dropped from the result and
# counted as "closes of fds opened before the capture (or inherited) and never used", which
# they were not, and the report then had one failed op fewer in the replay than in the
# original. A close of fd -1 (git's, of a pipe end it never made) was "not replayed:
# path op without a path".
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 openat path=/c/f flags=O_RDONLY ret=3
1 1 2 3 close fd=3 ret=0
1 1 4 5 close fd=3 ret=-EBADF kind=unknown
1 1 6 7 close fd=7 ret=-EBADF kind=unknown
1 1 8 9 close fd=-1 ret=-EBADF kind=unknown
SPEC
for tm in original afap; do
	replay_as_traced $tm "an outcome differs"
	grep -q "ops not replayed: 0" "$T/out" || fail "$tm: $(cat "$T/out")"
	! grep -q "never used" "$T/out" || fail "$tm: the failed closes counted as closes of fds from before the capture: $(cat "$T/out")"
	n=$("$IOREEL" dump "$T/r.reel" --format csv | grep -c '^close,.*,EBADF,')
	[ "$n" = 3 ] || fail "$tm: $n closes failed with EBADF in the result, want 3: $("$IOREEL" dump "$T/r.reel")"
done
echo PASS
