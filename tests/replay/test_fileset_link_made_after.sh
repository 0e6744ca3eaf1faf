#!/bin/bash
# A symlink the application made by a name after the paths it first named below that name:
# those were in what stood there then (here a directory renamed in, then renamed away), not
# where the later link leads. Followed through the link, /r/n6/f was prepared as p0/f, p0 (a
# file the trace reads) taken for a directory, and the replay refused to start (stress seed
# 6100: cannot prepare .../p0/n3: Not a directory).
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 rename path=/r/d1 path2=/r/n6 ret=0
1 1 2 3 openat path=/r/n6/f flags=O_RDONLY ret=3
1 1 4 5 pread64 fd=3 off=0 len=100 ret=100
1 1 6 7 close fd=3 ret=0
1 1 7 8 unlinkat path=/r/n6/sub/g ret=0
1 1 8 9 rename path=/r/n6 path2=/r/n2 ret=0
1 1 10 11 symlink path=/r/n6 path2=p0 ret=0
1 1 12 13 openat path=/r/p0 flags=O_RDONLY ret=3
1 1 14 15 pread64 fd=3 off=0 len=50 ret=50
1 1 16 17 close fd=3 ret=0
SPEC
for timing in original afap; do
	replay_as_traced $timing "a path named before a link was made by its name"
done
m="$T/tgt/.ioreel-prepared"
grep -qx "f 100 r/d1/f" "$m" || fail "r/d1/f not prepared at 100 bytes: $(cat "$m")"
grep -qx "f 50 r/p0" "$m" || fail "r/p0 not prepared as a file of 50 bytes: $(cat "$m")"
grep -qx "f 0 r/d1/sub/g" "$m" || fail "r/d1/sub/g not prepared: $(cat "$m")"
echo PASS
