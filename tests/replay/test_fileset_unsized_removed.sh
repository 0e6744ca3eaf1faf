#!/bin/bash
# Files there before the capture that the application removes by name without ever opening
# or stat'ing them: Tarantool's vinyl drops the run and index files a compaction replaced
# (13 of 23 unlinkat, 1-272 KB each). Nothing says how long they were, so they are prepared
# empty and their unlinks free nothing (ext4: p50 88.8 us recorded, 7.1 us replayed, 0.08x)
# with nothing said. The summary and the report count them; a file whose size the open
# said, one read before its removal, and a directory removed, are not counted.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 unlinkat fd=-100 path=/d/1.run ret=0
100 100 200 210 rename path=/d/2.run path2=/d/old.run ret=0
100 100 300 310 openat fd=-100 path=/d/3.run flags=O_RDONLY aux=8193 ret=5
100 100 400 410 close fd=5 path=/d/3.run ret=0
100 100 500 510 unlinkat fd=-100 path=/d/3.run ret=0
100 100 600 610 openat fd=-100 path=/d/4.run flags=O_RDONLY ret=6
100 100 700 710 pread64 fd=6 path=/d/4.run off=0 len=4096 ret=4096
100 100 800 810 close fd=6 path=/d/4.run ret=0
100 100 900 910 unlinkat fd=-100 path=/d/4.run ret=0
100 100 1000 1010 unlinkat fd=-100 path=/d/sub flags=AT_REMOVEDIR ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
grep -q "^  2 files the application removed, renamed away or replaced before anything" \
	"$T/out" || fail "files prepared empty for want of a size not counted (2): $(cat "$T/out")"
grep -q "on $T/tgt, 2 files the application removed, renamed away or replaced were prepared empty" \
	"$T/out" || fail "the report does not say so: $(cat "$T/out")"
echo PASS
