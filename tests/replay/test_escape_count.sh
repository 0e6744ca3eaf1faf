#!/bin/bash
# The notice of paths leading out of the target counts the paths, not the directories above
# them it would have prepared too: ../../x/y/z/f and ../../x/q are 2 (one such path read
# "6 traced paths lead out of the target").
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=../../x/y/z/f flags=O_RDONLY ret=3
100 100 20 30 pread64 fd=3 off=0 len=100 ret=100
100 100 40 50 openat path=../../x/q flags=O_RDONLY ret=4
100 100 60 70 pread64 fd=4 off=0 len=100 ret=100
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "^ioreel: replay: 2 traced paths lead out of the target" "$T/out" ||
	fail "$(grep -i 'lead out' "$T/out" || cat "$T/out")"
[ -z "$(ls -A "$T/tgt" | grep -v '^\.ioreel')" ] || fail "prepared in the target: $(ls -A "$T/tgt")"
echo PASS
