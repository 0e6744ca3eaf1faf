#!/bin/bash
# A path op whose path the kernel could not read (EFAULT, no path in the trace) replays as
# the same call with a NULL path, failing the same way: every Rust program probes for statx
# so (statx(0, NULL, 0, STATX_ALL, NULL)) at its first metadata call, and each replay of
# cargo said "ops not replayed: 1 ... path op without a path".
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 statx fd=0 mode=0xfff ret=-EFAULT
1 1 2 3 newfstatat fd=-100 ret=-EFAULT
1 1 4 5 faccessat fd=-100 mode=4 ret=-EFAULT
1 1 6 7 stat path=/r/f ret=0
SPEC
replay_as_traced original "a NULL-path probe did not fail as the original"
grep -q "ops not replayed: 0" "$T/out" || fail "the probes were not replayed: $(cat "$T/out")"
echo PASS
