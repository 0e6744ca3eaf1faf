#!/bin/bash
# A symlink that was there before the capture with an absolute content (readlink's path2):
# RESOLVE_BENEATH never follows one, so it is prepared with the relative content that leads
# from the link's directory to the mapped destination, both under one target root. readlink
# then returns the new length, which the replay does not count as a differing outcome; the
# reads through the link get their full byte counts from a destination prepared as large as
# read. A destination that --map puts under another root is out of reach of any content: the
# link is prepared as without its content (followed: as the file it led to, its readlink
# failing, counted), as is one leading to /proc. A chain of links is followed to its end.
# Nothing is made outside the targets.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || exit 77

A=$T/app # traced paths: never there, so that anything made outside the target shows
z=$A/lib64/z/libz.so.1
mk t <<SPEC
100 100 0 10 readlink path=$A/lib/libz.so path2=$z len=4096 ret=${#z}
100 100 10 20 openat path=$A/lib/libz.so flags=O_RDONLY ret=3
100 100 20 30 pread64 fd=3 off=65536 len=4096 ret=4096
100 100 30 40 close fd=3 ret=0
SPEC

# field OP PATH KEY: KEY of the replayed OPs on PATH, one a line
field() {
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["op"] == sys.argv[1] and o["path"] == sys.argv[2]:
        print(o[sys.argv[3]])' "$2" "$3" "$4"
}

"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "outcomes differ"
}
grep -q "ops not replayed: 0" "$T/out" || fail "ops not replayed: $(cat "$T/out")"
d=$T/tgt$A
[ -L "$d/lib/libz.so" ] && [ "$(readlink "$d/lib/libz.so")" = ../lib64/z/libz.so.1 ] ||
	fail "lib/libz.so: $(readlink "$d/lib/libz.so" 2>&1), want ../lib64/z/libz.so.1"
[ -f "$d/lib64/z/libz.so.1" ] && [ "$(stat -c %s "$d/lib64/z/libz.so.1")" -ge 69632 ] ||
	fail "lib64/z/libz.so.1 not prepared with >= 69632 bytes"
# ../lib64/z/libz.so.1
[ "$(field "$T/r.reel" readlink "$A/lib/libz.so" ret)" = 20 ] ||
	fail "readlink returned $(field "$T/r.reel" readlink "$A/lib/libz.so" ret), want 20"
"$IOREEL" dump --format jsonl "$T/r.reel" | grep '"op":"pread64"' | grep -q '"ret":4096' ||
	fail "the read through the link did not return 4096"
[ "$(ls "$T" | tr '\n' ' ')" = "out r.reel t.reel tgt " ] ||
	fail "made outside the target: $(ls "$T")"

# a chain, as alternatives make: bin/java -> ../etc/alt/java -> $A/jvm/bin/java, opened and
# read as bin/java: each link keeps (or gets) a content leading to the next, the last file is
# prepared as large as read
j=$A/jvm/bin/java
mk c <<SPEC
100 100 0 10 readlink path=$A/bin/java path2=../etc/alt/java len=4096 ret=15
100 100 10 20 readlink path=$A/etc/alt/java path2=$j len=4096 ret=${#j}
100 100 20 30 openat path=$A/bin/java flags=O_RDONLY ret=3
100 100 30 40 pread64 fd=3 off=8192 len=4096 ret=4096
100 100 40 50 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/c.reel" --target "$T/tgtc" -o "$T/rc.reel" >"$T/outc" 2>&1 ||
	fail "replay of the chain failed: $(cat "$T/outc")"
grep -q "outcomes differing from the original: 0" "$T/outc" || {
	cat "$T/outc"
	fail "chain: outcomes differ"
}
d=$T/tgtc$A
[ "$(readlink "$d/bin/java")" = ../etc/alt/java ] || fail "bin/java: $(readlink "$d/bin/java")"
[ "$(readlink "$d/etc/alt/java")" = ../../jvm/bin/java ] ||
	fail "etc/alt/java: $(readlink "$d/etc/alt/java")"
[ -f "$d/jvm/bin/java" ] && [ "$(stat -c %s "$d/jvm/bin/java")" -ge 12288 ] ||
	fail "jvm/bin/java not prepared with >= 12288 bytes"
[ "$(field "$T/rc.reel" readlink "$A/bin/java" ret)" = 15 ] || fail "readlink of bin/java"
"$IOREEL" dump --format jsonl "$T/rc.reel" | grep '"op":"pread64"' | grep -q '"ret":4096' ||
	fail "the read through the chain did not return 4096"
rm -r "$T/tgtc" "$T/c.reel" "$T/rc.reel" "$T/outc"

# the destination under another root (--map), or in /proc: no content reaches it
v=$A/store/v1
mk m <<SPEC
100 100 0 10 readlink path=$A/data/cur path2=$v len=4096 ret=${#v}
100 100 10 20 openat path=$A/data/cur flags=O_RDONLY ret=3
100 100 20 30 pread64 fd=3 off=0 len=100 ret=100
100 100 30 40 close fd=3 ret=0
100 100 40 50 readlink path=$A/data/self path2=/proc/1/status len=4096 ret=14
SPEC
mkdir "$T/tgt2"
"$IOREEL" replay "$T/m.reel" --target "$T/tgt1" --map "$A/store=$T/tgt2" -o "$T/r1.reel" \
	>"$T/out1" 2>&1 || fail "replay with --map failed: $(cat "$T/out1")"
d=$T/tgt1$A
[ -f "$d/data/cur" ] && [ ! -L "$d/data/cur" ] && [ "$(stat -c %s "$d/data/cur")" = 100 ] ||
	fail "data/cur not prepared as the 100-byte file it led to"
grep -q "outcomes differing from the original: 1" "$T/out1" &&
	grep -q "readlink $A/data/cur .*original ${#v}, replay -EINVAL" "$T/out1" || {
	cat "$T/out1"
	fail "want the readlink of data/cur, only, to differ"
}
[ -L "$d/data/self" ] && [ "$(readlink "$d/data/self" | wc -c)" = 15 ] &&
	[ ! -e "$d/data/self" ] || fail "data/self is not a stand-in of 14 bytes leading nowhere"
[ "$(field "$T/r1.reel" readlink "$A/data/self" ret)" = 14 ] || fail "readlink of data/self"
[ -z "$(ls -A "$T/tgt2" | grep -v '^.ioreel-prepared$')" ] || fail "made in tgt2: $(ls "$T/tgt2")"
[ "$(ls "$T" | tr '\n' ' ')" = "m.reel out out1 r.reel r1.reel t.reel tgt tgt1 tgt2 " ] ||
	fail "made outside the targets: $(ls "$T")"
echo PASS
