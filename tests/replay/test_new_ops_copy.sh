#!/bin/bash
# Copies: a sendfile whose destination was a socket replays into /dev/null and reads the
# source from the storage all the same (evicted from the page cache before, its pages are
# there again after, all of them); a copy that moves fewer bytes than the original is counted as short, as a
# read is.
source "$(dirname "$0")/lib.sh"

# only sendfile touches big: what is cached after the replay, the sendfile read
mk cold <<'SPEC'
100 100 0 10 openat path=/s/big flags=O_RDONLY ret=3
100 100 100 200 sendfile fd=3 fd2=9 path=/s/big mode=6 off=0 len=4194304 ret=4194304
100 100 300 310 close fd=3 ret=0
SPEC
# prepared by a first run; then only big leaves the page cache (not --cold: as root it drops
# every cache of the machine), and the second run reuses the set
"$IOREEL" replay "$T/cold.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
sync -f "$T/tgt/s/big"
python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$T/tgt/s/big"
[ "$(fincore --bytes --noheadings -o RES "$T/tgt/s/big" | tr -d " ")" = 0 ] || {
	echo "SKIP: cannot evict a file from the page cache here"
	exit 77
}
"$IOREEL" replay "$T/cold.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
grep -q "reused" "$T/out" || fail "the prepared set was not reused"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "outcomes differ"
}
"$IOREEL" dump --format jsonl "$T/r.reel" | grep -q '"op":"sendfile".*"ret":4194304' ||
	fail "sendfile did not move the 4 MiB: $("$IOREEL" dump "$T/r.reel")"
res=$(fincore --bytes --noheadings -o RES "$T/tgt/s/big" | tr -d " ")
[ "$res" = 4194304 ] || fail "sendfile into /dev/null read $res bytes of the source, want 4194304"

# the application made src 1000 bytes long before copying from it 5000 (through a mapping
# the trace lacks, say): the replay's copies move 1000 and are counted short, as reads are
mk short <<'SPEC'
100 100 0 10 openat path=/s/src flags=O_RDWR ret=3
100 100 10 20 pread64 fd=3 off=0 len=8192 ret=8192
100 100 20 30 ftruncate fd=3 len=1000 ret=0
100 100 30 40 openat path=/s/dst flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=4
100 100 40 50 copy_file_range fd=3 fd2=4 path=/s/src path2=/s/dst off=0 len=5000 aux=0 ret=5000
100 100 50 60 sendfile fd=3 fd2=9 path=/s/src mode=6 off=0 len=5000 ret=5000
100 100 60 70 sendfile fd=3 fd2=4 path=/s/src path2=/s/dst mode=1 off=0 len=1000 aux=5000 ret=1000
SPEC
"$IOREEL" replay "$T/short.reel" --target "$T/tgt2" -o "$T/r2.reel" >"$T/out2" 2>&1 ||
	fail "replay failed: $(cat "$T/out2")"
grep -q "^ *2 short read/write/copy" "$T/out2" || {
	cat "$T/out2"
	fail "short copies not counted"
}
grep -q "outcomes differing from the original: 2" "$T/out2" || fail "want exactly 2 outcomes differing"
# the copies moved what the file held, to where the trace says
[ "$(stat -c %s "$T/tgt2/s/dst")" = 6000 ] || fail "dst size $(stat -c %s "$T/tgt2/s/dst")"
echo PASS
