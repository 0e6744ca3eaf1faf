#!/bin/bash
# A symlink that was there before the capture, whose content a readlink read (path2), is
# prepared as a symlink with that content, and what the application reached through it where
# the content leads: python3 -> python3.11 (readlink'd, opened, read at an offset; python3.11
# named by the trace too, with a smaller extent), lib/libx.so -> x/libx.so.1 (through a
# subdirectory), lib -> lib64 (a directory link with a file read below it), cache -> cache.d
# (one with a file made below it: the directory it leads to is prepared), usr/lib's
# libz.so.1 -> libz.so.1.2.13 read as lib/libz.so.1 (a link below a link). readlink replays
# with the original's length, the reads through the links with their full byte counts, and
# nothing is made outside the target. The prepared set is reused only while every link still
# has its content: one swapped for another of the same length is prepared again.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || exit 77

A=$T/app # traced paths: never there, so that anything made outside the target shows
mk t <<SPEC
100 100 0 10 readlink path=$A/bin/python3 path2=python3.11 len=4096 ret=10
100 100 10 20 stat path=$A/bin/python3 ret=0
100 100 20 30 openat path=$A/bin/python3 flags=O_RDONLY ret=3
100 100 30 40 pread64 fd=3 off=4096 len=8192 ret=8192
100 100 40 50 close fd=3 ret=0
100 100 50 60 readlink path=$A/bin/python3.11 len=4096 ret=-EINVAL
100 100 60 70 openat path=$A/bin/python3.11 flags=O_RDONLY ret=3
100 100 70 80 pread64 fd=3 off=0 len=100 ret=100
100 100 80 90 close fd=3 ret=0
100 101 100 110 readlinkat fd=-100 path=$A/lib/libx.so path2=x/libx.so.1 len=256 ret=11
100 101 110 120 openat path=$A/lib/libx.so flags=O_RDONLY ret=4
100 101 120 130 read fd=4 off=0 len=832 ret=832
100 101 130 140 pread64 fd=4 off=20000 len=1000 ret=1000
100 101 140 150 close fd=4 ret=0
100 102 200 210 readlink path=$A/usr/lib path2=lib64 len=4096 ret=5
100 102 210 220 openat path=$A/usr/lib/libc.so.6 flags=O_RDONLY ret=5
100 102 220 230 pread64 fd=5 off=0 len=2048 ret=2048
100 102 230 240 close fd=5 ret=0
SPEC

# rets OP PATH: the return values of the replayed OPs on PATH, one a line
rets() {
	"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["op"] == sys.argv[1] and o["path"] == sys.argv[2]:
        print(o["ret"])' "$1" "$2"
}
# reads: the replayed read-type ops as "ret/len", one a line
reads() {
	"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["op"] in ("read", "pread64"):
        print("%d/%d" % (o["ret"], o["len"]))'
}
replay() {
	"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay $1 failed: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		cat "$T/out"
		fail "run $1: outcomes differ"
	}
	d=$T/tgt$A
	[ -L "$d/bin/python3" ] && [ "$(readlink "$d/bin/python3")" = python3.11 ] ||
		fail "run $1: bin/python3 is not a symlink to python3.11"
	[ -f "$d/bin/python3.11" ] && [ ! -L "$d/bin/python3.11" ] ||
		fail "run $1: bin/python3.11 is not a file"
	# the furthest byte read through the link: 4096 + 8192
	[ "$(stat -c %s "$d/bin/python3.11")" -ge 12288 ] ||
		fail "run $1: python3.11 has $(stat -c %s "$d/bin/python3.11") bytes, want >= 12288"
	[ "$(readlink "$d/lib/libx.so")" = x/libx.so.1 ] || fail "run $1: lib/libx.so content"
	[ -f "$d/lib/x/libx.so.1" ] && [ "$(stat -c %s "$d/lib/x/libx.so.1")" -ge 21000 ] ||
		fail "run $1: lib/x/libx.so.1 not prepared with >= 21000 bytes"
	[ "$(readlink "$d/usr/lib")" = lib64 ] || fail "run $1: usr/lib is not a symlink to lib64"
	[ -d "$d/usr/lib64" ] && [ "$(stat -c %s "$d/usr/lib64/libc.so.6")" -ge 2048 ] ||
		fail "run $1: usr/lib64/libc.so.6 not prepared with >= 2048 bytes"
	[ "$(rets readlink "$A/bin/python3")" = 10 ] ||
		fail "run $1: readlink python3 returned $(rets readlink "$A/bin/python3"), want 10"
	[ "$(rets readlinkat "$A/lib/libx.so")" = 11 ] || fail "run $1: readlinkat libx.so"
	[ "$(rets readlink "$A/usr/lib")" = 5 ] || fail "run $1: readlink usr/lib"
	[ "$(rets readlink "$A/bin/python3.11")" = -22 ] || fail "run $1: python3.11 is a symlink"
	[ "$(reads | sort | tr '\n' ' ')" = "100/100 1000/1000 2048/2048 8192/8192 832/832 " ] ||
		fail "run $1: reads $(reads | tr '\n' ' ')"
	# nothing outside the target: $T holds what this script made, and no app/
	[ "$(ls "$T" | tr '\n' ' ')" = "out r.reel t.reel tgt " ] ||
		fail "run $1: made outside the target: $(ls "$T")"
}

replay 1
replay 2
grep -q "reusing prepared file set" "$T/out" || fail "run 2 did not reuse: $(head -3 "$T/out")"
# a link swapped for one of the same length that leads elsewhere: not the trace's file set
ln -sfn python3.12 "$T/tgt$A/bin/python3"
replay 3
grep -q "reusing prepared file set" "$T/out" && fail "run 3 reused a link with another content"

# a symlink below another (merged /usr: lib -> usr/lib) lies where its directory leads, and a
# content with ".." leads from there, as the kernel takes it
mk n <<SPEC
100 100 0 10 readlink path=$A/lib path2=usr/lib len=4096 ret=7
100 100 10 20 readlink path=$A/lib/libz.so.1 path2=libz.so.1.2.13 len=4096 ret=14
100 100 20 30 openat path=$A/lib/libz.so.1 flags=O_RDONLY ret=3
100 100 30 40 pread64 fd=3 off=0 len=5000 ret=5000
100 100 40 50 close fd=3 ret=0
100 100 50 60 readlink path=$A/lib/up path2=../share/conf len=4096 ret=13
100 100 60 70 openat path=$A/lib/up flags=O_RDONLY ret=3
100 100 70 80 pread64 fd=3 off=0 len=300 ret=300
100 100 80 90 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/n.reel" --target "$T/tgt" --fresh -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay of n failed: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "n: outcomes differ"
}
d=$T/tgt$A
[ "$(readlink "$d/lib")" = usr/lib ] && [ "$(readlink "$d/usr/lib/libz.so.1")" = libz.so.1.2.13 ] ||
	fail "lib -> usr/lib, usr/lib/libz.so.1 -> libz.so.1.2.13 not prepared"
[ "$(stat -c %s "$d/usr/lib/libz.so.1.2.13")" -ge 5000 ] || fail "usr/lib/libz.so.1.2.13 size"
[ "$(readlink "$d/usr/lib/up")" = ../share/conf ] &&
	[ "$(stat -c %s "$d/usr/share/conf")" -ge 300 ] ||
	fail "usr/lib/up -> ../share/conf, usr/share/conf not prepared"
[ "$(rets readlink "$A/lib/libz.so.1")" = 14 ] && [ "$(rets readlink "$A/lib/up")" = 13 ] ||
	fail "readlinks below lib"
[ "$(reads | sort | tr '\n' ' ')" = "300/300 5000/5000 " ] || fail "n: reads $(reads | tr '\n' ' ')"

# a file made through it, only: var/cache led to a directory, prepared
mk c <<SPEC
100 100 0 10 readlink path=$A/var/cache path2=cache.d len=4096 ret=7
100 100 10 20 openat path=$A/var/cache/new flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=5
100 100 20 30 close fd=5 ret=0
SPEC
"$IOREEL" replay "$T/c.reel" --target "$T/tgt" --fresh -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay of c failed: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "c: outcomes differ"
}
[ "$(readlink "$T/tgt$A/var/cache")" = cache.d ] && [ -f "$T/tgt$A/var/cache.d/new" ] ||
	fail "var/cache is not a symlink to the directory cache.d that holds new"
[ "$(ls "$T" | tr '\n' ' ')" = "c.reel n.reel out r.reel t.reel tgt " ] ||
	fail "c: made outside the target: $(ls "$T")"
echo PASS
