#!/bin/bash
# The file-set rules (replay_fileset.c), each on its own path: which files existed before the
# capture, as what, and how large; checked on the prepared manifest and the target.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
# read extent: furthest byte read
1 1 0 1 openat path=/r/read flags=O_RDONLY ret=3
1 1 2 3 pread64 fd=3 off=10000 len=4096 ret=4096
# O_CREAT without O_EXCL: existed only if bytes were read that the app had not written
1 1 10 11 openat path=/r/maybe_old flags=O_RDWR|O_CREAT mode=0644 ret=4
1 1 12 13 pread64 fd=4 off=0 len=100 ret=100
1 1 14 15 openat path=/r/maybe_new flags=O_RDWR|O_CREAT mode=0644 ret=5
1 1 16 17 pwrite64 fd=5 off=0 len=500 ret=500
1 1 18 19 pread64 fd=5 off=0 len=500 ret=500
# size from lseek(SEEK_END) and from the first O_APPEND write's position
1 1 20 21 openat path=/r/seek flags=O_RDONLY ret=6
1 1 22 23 lseek fd=6 off=0 mode=SEEK_END ret=7777
1 1 24 25 openat path=/r/append flags=O_WRONLY|O_APPEND ret=7
1 1 26 27 write fd=7 off=3333 len=10 ret=10
# access(X_OK) that succeeded: executable
1 1 30 31 access path=/r/tool mode=1 ret=0
# a statx's mode is its mask (STATX_TYPE is bit 0, as X_OK is): no exec bit from it
1 1 36 37 statx path=/r/statted mode=0xfff ret=0
# only stat'ed, with another path below: a directory
1 1 32 33 stat path=/r/sub ret=0
1 1 34 35 stat path=/r/sub/f ret=0
# absent: not prepared; the directory it was looked for in was there, and those above it
1 1 40 41 openat path=/r/gone/deeper/x flags=O_RDONLY ret=-ENOENT
# unless an op found that one missing too
1 1 42 43 stat path=/r/none ret=-ENOENT
1 1 44 45 openat path=/r/none/x flags=O_RDONLY ret=-ENOENT
# inside a directory the app made: not prepared, even when seen to exist
1 1 50 51 mkdir path=/r/made mode=0755 ret=0
1 1 52 53 access path=/r/made/inner mode=0 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" -q 2>"$T/err" || fail "replay: $(cat "$T/err")"
m="$T/tgt/.ioreel-prepared"
has() { grep -qx -- "$1" "$m" || fail "manifest lacks '$1': $(cat "$m")"; }
hasnt() { ! grep -q -- "$1" "$m" || fail "manifest has '$1': $(cat "$m")"; }
has "f 14096 r/read"
has "f 100 r/maybe_old"
hasnt "r/maybe_new"
has "f 7777 r/seek"
has "f 3333 r/append"
has "x 0 r/tool"
has "d r/sub"
has "f 0 r/sub/f"
has "d r/gone"
has "d r/gone/deeper"
hasnt "r/gone/deeper/x"
hasnt "r/none"
hasnt "r/made/"
[ -x "$T/tgt/r/tool" ] || fail "r/tool not executable"
has "f 0 r/statted"
[ ! -x "$T/tgt/r/statted" ] || fail "r/statted made executable by a statx's mask"
[ -d "$T/tgt/r/made" ] || fail "the replay's mkdir did not run"
echo PASS
