#!/bin/bash
# report_ks_p_test.sh IOREEL MKTRACE - the p-value beside "too few ops to tell a change from
# chance" is printed with its first two significant digits: at two decimals a p just above
# the 0.01 the verdict needs read "p 0.01" (Traffic Server's 458 preads, KS D 0.10: "too few
# ops to tell a change from chance (458 and 458; KS D 0.10, p 0.01)"), which reads as a
# change found. 100 preads of 10 µs in the original; 22 of them take 100 µs in the replay:
# KS D 0.22, p 0.013. Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib.sh"
report_setup ks_p "$@"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

spec() { # spec SLOW: SLOW of the 100 preads take 100 µs, the rest 10 µs
	python3 - "$1" <<'PY'
import sys
slow, t = int(sys.argv[1]), 0
print(f"1 1 {t} {t + 5} openat path=/d/f flags=O_RDWR ret=3")
t += 10
for i in range(100):
    lat = 100 if i < slow else 10
    print(f"1 1 {t} {t + lat} pread64 fd=3 off=0 len=4096 ret=4096")
    t += lat + 50
PY
}
spec 0 | "$MKTRACE" "$T/orig.reel" || fail "replay_mktrace orig"
spec 22 | "$MKTRACE" "$T/slow.reel" || fail "replay_mktrace slow"
"$IOREEL" report "$T/orig.reel" "$T/slow.reel" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
v=$(sed -n '/^verdict/,$p' "$T/out")
grep -q "^  - pread64 on slow.reel: p99 moves .*, too few ops to tell a change from chance (100 and 100; KS D 0.22, p 0.013)" <<<"$v" ||
	fail "pread64's p-value not given to two significant digits: $v"
echo PASS
