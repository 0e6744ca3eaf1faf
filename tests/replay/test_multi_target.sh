#!/bin/bash
# Several targets: one replay per target in turn, results RESULT.0, RESULT.1 in --target
# order, each naming its target in its meta (replay.targets), then the comparison.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=0 len=4096 ret=4096
100 100 200 210 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/one" --target /dev/shm/"$(basename "$T")" \
	-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
rm -rf /dev/shm/"$(basename "$T")"
for i in 0 1; do
	[ -s "$T/r.reel.$i" ] || fail "no result r.reel.$i"
	check_same_ops "$T/t.reel" "$T/r.reel.$i" >/dev/null
done
"$IOREEL" info "$T/r.reel.0" | grep -q "$T/one" || fail "r.reel.0 does not name its target"
"$IOREEL" info "$T/r.reel.1" | grep -q "/dev/shm/" || fail "r.reel.1 does not name its target"
[ "$(grep -c '^replay of' "$T/out")" = 2 ] || fail "want one summary per target"
echo PASS
