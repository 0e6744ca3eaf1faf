#!/bin/bash
# Files the application reached only through a symlink it made are prepared under the names
# the symlink's content gives: cur -> data/v1 opened and read as cur prepares data/v1 as large
# as read; dir -> real, with dir/f read, prepares real/f. A target the trace names itself as
# made by the application is left for the replay to make, and a content that is absolute is
# not followed: nothing is prepared for it and the open through it is refused. A symlink
# swapped for one leading elsewhere is followed anew.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 symlink path=/srv/v/cur path2=data/v1 ret=0
100 100 10 20 symlink path=/srv/v/dir path2=./../v/real ret=0
100 100 20 30 symlinkat fd=-100 path=/srv/v/new path2=made ret=0
100 100 30 40 symlink path=/srv/v/abs path2=/srv/v/data/v1 ret=0
100 100 40 50 openat path=/srv/v/made flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=4
100 100 50 60 close fd=4 ret=0
100 101 100 110 openat path=/srv/v/cur flags=O_RDONLY ret=3
100 101 110 120 pread64 fd=3 off=4096 len=8192 ret=8192
100 101 120 130 close fd=3 ret=0
100 101 130 140 openat path=/srv/v/dir/f flags=O_RDONLY ret=3
100 101 140 150 pread64 fd=3 off=0 len=100 ret=100
100 101 150 160 close fd=3 ret=0
100 101 160 170 openat path=/srv/v/new flags=O_RDONLY ret=3
100 101 170 180 close fd=3 ret=0
100 101 180 190 openat path=/srv/v/abs flags=O_RDONLY ret=3
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
d=$T/tgt/srv/v
[ "$(stat -c %s "$d/data/v1" 2>&1)" = 12288 ] || fail "data/v1: $(stat -c %s "$d/data/v1" 2>&1)"
[ "$(stat -c %s "$d/real/f" 2>&1)" = 100 ] || fail "real/f: $(stat -c %s "$d/real/f" 2>&1)"
grep -q "^f 0 srv/v/made" "$T/tgt/.ioreel-prepared" && fail "made was prepared"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "outcomes differ"
}
grep -q "1 not replayed: path escapes the target" "$T/out" || fail "the open through abs was not refused"

# a symlink swapped (unlinked, made again leading elsewhere) leads the next lookups anew
mk swap <<'SPEC'
100 100 0 10 stat path=/srv/w/v1/x ret=0
100 100 10 20 stat path=/srv/w/v2/x ret=0
100 100 20 30 symlink path=/srv/w/cur path2=v1 ret=0
100 100 30 40 stat path=/srv/w/cur/x ret=0
100 100 40 50 unlink path=/srv/w/cur ret=0
100 100 50 60 unlink path=/srv/w/v1/x ret=0
100 100 60 70 symlink path=/srv/w/cur path2=v2 ret=0
100 100 70 80 stat path=/srv/w/cur/x ret=0
SPEC
"$IOREEL" replay "$T/swap.reel" --target "$T/tgt2" -o "$T/r2.reel" >"$T/out2" 2>&1 ||
	fail "replay failed: $(cat "$T/out2")"
grep -q "outcomes differing from the original: 0" "$T/out2" || {
	cat "$T/out2"
	fail "the swapped symlink was not followed anew"
}
echo PASS
