#!/bin/bash
# report: most ops moved one way, by less than the 1.25x called faster or slower: "shifts",
# with the numbers, not "unchanged" (470,000 aio_preads, p50 0.82x, KS D 0.61, were listed
# among the unchanged). A small shift (KS D under 0.3) still reads unchanged.
# usage: report_shift_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup shift "$@"

# mk_run FILE SHIFT_US SPREAD: 200 preads of 140..(140 + SPREAD) us in the original, each
# SHIFT_US less in the replay
mk_run() {
	python3 - "$1" "$2" "$3" "$T/o.reel" <<'PY'
import sys
path, shift, spread, orig = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
with open(path + ".o.txt", "w") as o, open(path + ".r.txt", "w") as r:
    r.write("meta replay.of %s\nmeta replay.targets /dev/shm/shift\n" % orig)
    r.write("meta replay.engine sync\nmeta replay.timing original\n")
    for i in range(200):
        s = 1000 + i * 1000
        lat = 140 + (i * 7) % (spread + 1)
        o.write("100 100 %d %d pread64 fd=3 path=/d/f off=0 len=4096 ret=4096\n" % (s, s + lat))
        r.write("100 100 %d %d pread64 fd=3 path=/d/f off=0 len=4096 ret=4096 sched=%d\n"
                % (s, s + lat - shift, s))
PY
	"$MKTRACE" "$T/o.reel" <"$1.o.txt" && "$MKTRACE" "$T/r.reel" <"$1.r.txt" || exit 1
}

mk_run "$T/big" 25 24
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || exit 1
grep -q "pread64 on /dev/shm/shift shifts down: p50 15[0-9] µs → 12[0-9] µs (0.8[0-9]×), p99 .*, KS D 1.00: most ops moved, by less than the 1.25× called faster or slower" "$T/out" ||
	{ sed -n '/verdict/,$p' "$T/out"; echo "FAIL: no shift said"; exit 1; }
! grep -q "reads unchanged" "$T/out" || { echo "FAIL: the shifted reads also unchanged"; exit 1; }
"$IOREEL" report --json "$T/o.reel" "$T/r.reel" | grep -q '"change": "shifted"' ||
	{ echo "FAIL: JSON change is not shifted"; exit 1; }

# 1 us down of a 140..164 us spread: KS D ~0.04, unchanged
mk_run "$T/small" 1 24
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || exit 1
grep -q "reads unchanged on /dev/shm/shift" "$T/out" && ! grep -q "shifts" "$T/out" ||
	{ sed -n '/verdict/,$p' "$T/out"; echo "FAIL: a small shift is not unchanged"; exit 1; }
echo PASS
