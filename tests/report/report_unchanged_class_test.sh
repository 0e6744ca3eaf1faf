#!/bin/bash
# report_unchanged_class_test.sh IOREEL MKTRACE - the verdict's line for the op types that did
# not change names a class (reads, syncs, ...) only when none of its op types changed: dpkg's
# replay on a busier disk had fsync 19x slower and sync_file_range unchanged, and the report
# said "fsync p50 rises ... (19.3x slower)" and then "reads, syncs, metadata ops unchanged".
# Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib.sh"
report_setup unchanged "$@"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# spec FSYNC_US: one thread, 200 rounds of pread64 (2 us), sync_file_range (30 us) and
# fsync (FSYNC_US, +-10%) on /d/f
spec() {
	python3 - "$1" <<'PY'
import sys
fs, t = int(sys.argv[1]), 0
print(f"1 1 {t} {t + 5} openat path=/d/f flags=O_RDWR ret=3")
t += 10
for i in range(200):
    for op, lat in (("pread64 off=0 len=4096 ret=4096", 2 + i % 2),
                    ("sync_file_range off=0 len=4096 ret=0", 30 + i % 7),
                    ("fsync ret=0", fs + (i % 21 - 10) * fs // 100)):
        name, rest = op.split(" ", 1)
        print(f"1 1 {t} {t + lat} {name} fd=3 {rest}")
        t += lat + 50
PY
}
spec 120 | "$MKTRACE" "$T/orig.reel" || fail "replay_mktrace orig"
spec 2400 | "$MKTRACE" "$T/slow.reel" || fail "replay_mktrace slow"
"$IOREEL" report "$T/orig.reel" "$T/slow.reel" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
grep -q "^  - fsync p[59][09] rises" "$T/out" || fail "fsync's change not said: $(cat "$T/out")"
if grep -E "^  - ([a-z ]+, )*syncs(, [a-z ]+)* unchanged on" "$T/out"; then
	fail "syncs said unchanged, fsync among them changed: $(sed -n '/^verdict/,$p' "$T/out")"
fi
grep -Eq "^  - reads, other syncs unchanged on slow.reel \(sync_file_range p50 " "$T/out" ||
	fail "no line for the op types that did not change: $(sed -n '/^verdict/,$p' "$T/out")"
echo PASS
