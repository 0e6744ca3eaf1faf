#!/bin/bash
# report_unchanged_class_test.sh IOREEL MKTRACE - the verdict's line for the op types that did
# not change names a class (reads, syncs, ...) only when none of its op types changed: dpkg's
# replay on a busier disk had fsync 19x slower and sync_file_range unchanged, and the report
# said "fsync p50 rises ... (19.3x slower)" and then "reads, syncs, metadata ops unchanged".
# The class of other ops (lseek, dup, fadvise64, mmap) with one of its types changed is "the
# rest of the other ops": an LMDB replay's verdict said "other other ops unchanged".
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

# spec2 FADV_US: 200 rounds of lseek (1 us) and fadvise64 (FADV_US, +-10%) on /d/f
spec2() {
	python3 - "$1" <<'PY'
import sys
fa, t = int(sys.argv[1]), 0
print(f"1 1 {t} {t + 5} openat path=/d/f flags=O_RDWR ret=3")
t += 10
for i in range(200):
    for op, lat in (("lseek off=0 ret=0", 1 + i % 2), ("fadvise64 off=0 len=0 ret=0", fa + (i % 21 - 10) * fa // 100)):
        name, rest = op.split(" ", 1)
        print(f"1 1 {t} {t + lat} {name} fd=3 {rest}")
        t += lat + 50
PY
}
spec2 20 | "$MKTRACE" "$T/orig2.reel" || fail "replay_mktrace orig2"
spec2 600 | "$MKTRACE" "$T/slow2.reel" || fail "replay_mktrace slow2"
"$IOREEL" report "$T/orig2.reel" "$T/slow2.reel" >"$T/out2" 2>&1 || fail "report 2: $(cat "$T/out2")"
grep -q "^  - fadvise64 p[59][09] rises" "$T/out2" || fail "fadvise64's change not said: $(cat "$T/out2")"
grep -Eq "^  - the rest of the other ops unchanged on slow2.reel \(lseek p50 " "$T/out2" ||
	fail "other ops with one changed not said so: $(sed -n '/^verdict/,$p' "$T/out2")"
echo PASS
