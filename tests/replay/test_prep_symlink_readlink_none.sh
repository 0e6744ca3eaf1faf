#!/bin/bash
# Without a whole content from readlink (an old trace: no path2; one as long as the buffer,
# maybe cut short; one whose length is not ret, cut by the writer), a symlink that was there
# before the capture is prepared as before: only readlink'd, a stand-in of the length read,
# leading nowhere; also followed, the file it led to (its readlink then fails, counted). Beside
# them, one with its content is made with it: the content is taken from path2 alone.
source "$(dirname "$0")/lib.sh"

A=$T/app # traced paths: never there, so that anything made outside the target shows
mk t <<SPEC
100 100 0 10 readlink path=$A/l/old len=4096 ret=12
100 100 10 20 readlink path=$A/l/cut len=4 path2=abcd ret=4
100 100 20 30 readlink path=$A/l/short len=4096 path2=abc ret=9
100 100 30 40 readlink path=$A/l/used len=4096 ret=9
100 100 40 50 openat path=$A/l/used flags=O_RDONLY ret=3
100 100 50 60 pread64 fd=3 off=0 len=100 ret=100
100 100 60 70 close fd=3 ret=0
100 100 70 80 readlink path=$A/l/known len=4096 path2=data/v1 ret=7
100 100 80 90 openat path=$A/l/known flags=O_RDONLY ret=3
100 100 90 100 pread64 fd=3 off=0 len=100 ret=100
100 100 100 110 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
grep -q "outcomes differing from the original: 1" "$T/out" &&
	grep -q "readlink $A/l/used .*original 9, replay -EINVAL" "$T/out" || {
	cat "$T/out"
	fail "want the readlink of used, only, to differ"
}
d=$T/tgt$A/l
# stand-ins: as long as read, leading nowhere, never the content the trace gave
for l in old:12 cut:4 short:9; do
	n=${l%:*} len=${l#*:}
	[ -L "$d/$n" ] && [ ! -e "$d/$n" ] && [ "$(readlink "$d/$n" | tr -d '\n' | wc -c)" = "$len" ] ||
		fail "$n is not a stand-in of $len bytes leading nowhere: $(readlink "$d/$n" 2>&1)"
	c=$(readlink "$d/$n")
	[ "${c:0:4}" = /ior ] || fail "$n: content $c, not the stand-in"
done
[ -f "$d/used" ] && [ ! -L "$d/used" ] && [ "$(stat -c %s "$d/used")" = 100 ] ||
	fail "used is not the 100-byte file it led to"
[ "$(readlink "$d/known")" = data/v1 ] && [ "$(stat -c %s "$d/data/v1")" = 100 ] ||
	fail "known is not a symlink to data/v1 of 100 bytes"
[ "$(ls "$T" | tr '\n' ' ')" = "out r.reel t.reel tgt " ] ||
	fail "made outside the target: $(ls "$T")"
echo PASS
