#!/bin/bash
# A file written at its fd's position (write, writev) through an fd opened before the capture
# had its bytes before that position: Redis appends to its AOF through an fd it opened long
# before (O_APPEND, which the trace cannot tell). The file is prepared that long, with real
# data: it was prepared empty, and the replay's writes left a hole where the original had
# the file's older part (freed for nothing when the file is unlinked, and sparse where the
# design promises real data). A pwrite at an offset says nothing of the size: not prepared.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 10 write fd=7 off=900000 len=1000 ret=1000 path=/d/aof"
	echo "100 100 20 30 fdatasync fd=7 ret=0 path=/d/aof"
	echo "100 100 40 50 writev fd=8 off=50000 len=100 ret=100 path=/d/log"
	echo "100 100 60 70 pwrite64 fd=9 off=70000 len=100 ret=100 path=/d/db"
} | mk t
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "$(cat "$T/out")"
check_size "$T/tgt/d/aof" 901000 "aof"
check_size "$T/tgt/d/log" 50100 "log"
check_size "$T/tgt/d/db" 70100 "db"
# prepared with data before the write: at most the written page and the file's last one
# unallocated (4 KiB blocks)
blocks=$(($(stat -c '%b * %B' "$T/tgt/d/aof") / 1024))
[ "$blocks" -ge 880 ] || fail "aof: $blocks KiB allocated of 880: the part before the write is a hole"
blocks=$(($(stat -c '%b * %B' "$T/tgt/d/db") / 1024))
[ "$blocks" -le 16 ] || fail "db: $blocks KiB allocated: a pwrite's offset made it prepared"
echo PASS
