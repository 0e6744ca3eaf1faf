#!/bin/bash
# report_lock_class_test.sh IOREEL MKTRACE - lock ops (flock, fcntl_lock) are a class of their
# own, "lock ops": their time is mostly a wait for another owner, not storage work, and lumped
# into "other ops" a lock-bound trace read as if something unnamed dominated it. Two
# processes take turns on a lock (each waits ~20 ms for the other), with a few 4 KiB reads.
# Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib.sh"
report_setup lockclass "$@"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

python3 - <<'PY' | "$MKTRACE" "$T/t.reel" || fail "replay_mktrace"
t = 0
for pid in (1, 2):
    print(f"{pid} {pid} {t} {t + 5} openat path=/d/f flags=O_RDWR ret=3")
t = 100
for i in range(20):
    pid = 1 + i % 2
    print(f"{pid} {pid} {t} {t + 20000} flock fd=3 path=/d/f mode=2 ret=0")
    t += 20000
    print(f"{pid} {pid} {t} {t + 20} pread64 fd=3 path=/d/f off=0 len=4096 ret=4096")
    t += 30
    print(f"{pid} {pid} {t} {t + 3} flock fd=3 path=/d/f mode=8 ret=0")
    t += 10
PY
"$IOREEL" report "$T/t.reel" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
grep -Eq "^  - lock ops dominate the original's I/O time: (9[0-9]|100)% of " "$T/out" ||
	fail "lock ops not said to dominate: $(sed -n '/^verdict/,$p' "$T/out")"
grep -Eq "/d/f  \(reads <1%, metadata ops <1%, lock ops 100%\)" "$T/out" ||
	fail "the hot file's classes: $(grep /d/f "$T/out")"
"$IOREEL" report --json "$T/t.reel" >"$T/json" 2>&1 || fail "report --json: $(cat "$T/json")"
python3 - "$T/json" <<'PY' || fail "JSON class_ns"
import json, sys
c = json.load(open(sys.argv[1]))["runs"][0]["class_ns"]
assert c["lock"] >= 20 * 20000 * 1000 and c["other"] == 0, c
PY
echo PASS
