#!/bin/bash
# report_few_ops_test.sh IOREEL MKTRACE - an op type whose distributions differ as much as a
# change does (KS D at or above 0.10) but with too few ops for the test to tell it from chance
# is said to be so, not "unchanged": Prometheus's replay had its 5 fallocates at p50 0.41x and
# the verdict read "fallocate: p50 moves from 707 µs to 292 µs (0.41×) but the bulk is
# unchanged (KS D 0.40, p50 0.41×)". Six fallocates of 1 ms in the original, four of 400 µs
# and two of 1 ms in the replay. 200 pread64s that did not change stay "unchanged". Exit 0
# pass, 1 fail.
source "$(dirname "$0")/lib.sh"
report_setup few_ops "$@"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

spec() { # spec FAST: FAST of the six fallocates take 400 µs, the rest 1 ms
	python3 - "$1" <<'PY'
import sys
fast, t = int(sys.argv[1]), 0
print(f"1 1 {t} {t + 5} openat path=/d/f flags=O_RDWR ret=3")
t += 10
for i in range(200):
    print(f"1 1 {t} {t + 2 + i % 2} pread64 fd=3 off=0 len=4096 ret=4096")
    t += 50
    if i % 33 == 0 and i < 198:
        lat = 400 if i // 33 < fast else 1000
        print(f"1 1 {t} {t + lat} fallocate fd=3 off=0 len=4096 ret=0")
        t += lat + 50
PY
}
spec 0 | "$MKTRACE" "$T/orig.reel" || fail "replay_mktrace orig"
spec 4 | "$MKTRACE" "$T/fast.reel" || fail "replay_mktrace fast"
"$IOREEL" report "$T/orig.reel" "$T/fast.reel" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
v=$(sed -n '/^verdict/,$p' "$T/out")
grep -q "^  - fallocate on fast.reel: p50 moves from 1.00 ms to 400 µs (0.40×), too few ops to tell a change from chance (6 and 6; KS D 0.67, p " <<<"$v" ||
	fail "fallocate's difference not said to be too few ops: $v"
grep -q "fallocate.*bulk is unchanged" <<<"$v" && fail "fallocate said unchanged: $v"
grep -q "reads unchanged on fast.reel (pread64 p50" <<<"$v" || fail "pread64 not unchanged: $v"
echo PASS
