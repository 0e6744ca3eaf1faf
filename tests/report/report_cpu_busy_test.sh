#!/bin/bash
# report_cpu_busy_test.sh IOREEL MKTRACE - each replay's line in the runs' summary says how
# busy the CPUs were during it beside the capture (meta replay.cpu_busy, capture.cpu_busy),
# and, when the replay's were busy less than half as much as the capture's (at least 25 %
# busy), that its short syscalls may read slower for it: PostgreSQL's WAL writes replayed
# 1.1-1.3x slower at p50 on idle CPUs, 0.9x with them kept busy
# (tests/bench_replay/idle_cpus.sh). No line without both shares. Exit 0 pass.
source "$(dirname "$0")/lib.sh"
report_setup cpu_busy "$@"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

spec() { # spec NAME CAPTURE_BUSY REPLAY_BUSY ("-": none)
	python3 - "$@" <<'PY'
import sys
name, cap, rpl = sys.argv[1:4]
if cap != "-":
    print(f"meta capture.cpu_busy {cap}")
if name != "orig":
    print("meta replay.engine sync")
    print("meta replay.timing original")
    print(f"meta replay.targets /dev/shm/{name}")
    if rpl != "-":
        print(f"meta replay.cpu_busy {rpl}")
t = 0
print(f"1 1 {t} {t + 5} openat path=/d/f flags=O_RDWR ret=3")
t += 10
for i in range(100):
    print(f"1 1 {t} {t + 5000} pwrite64 fd=3 off=0 len=4096 ret=4096 sched={t}")
    t += 20000
PY
}
spec orig 0.620 - | "$MKTRACE" "$T/orig.reel" || fail "replay_mktrace orig"
spec idle 0.620 0.030 | "$MKTRACE" "$T/idle.reel" || fail "replay_mktrace idle"
spec busy 0.620 0.450 | "$MKTRACE" "$T/busy.reel" || fail "replay_mktrace busy"
spec unknown 0.620 - | "$MKTRACE" "$T/unknown.reel" || fail "replay_mktrace unknown"
"$IOREEL" report "$T/orig.reel" "$T/idle.reel" "$T/busy.reel" "$T/unknown.reel" >"$T/out" 2>&1 ||
	fail "report: $(cat "$T/out")"
grep -q "CPUs 3% busy during the replay (the capture: 62%): its workers sleep between ops" \
	"$T/out" || fail "no note for the replay on idle CPUs: $(cat "$T/out")"
grep -q "CPUs 45% busy during the replay (the capture: 62%)$" "$T/out" ||
	fail "the replay on busy CPUs not said plainly: $(cat "$T/out")"
[ "$(grep -c "busy during the replay" "$T/out")" = 2 ] ||
	fail "a line for the replay that did not measure: $(cat "$T/out")"
# a capture that left the CPUs idle: no note, whatever the replay's
spec orig 0.100 - | "$MKTRACE" "$T/orig2.reel" || fail "replay_mktrace orig2"
"$IOREEL" report "$T/orig2.reel" "$T/idle.reel" >"$T/out2" 2>&1 || fail "report 2"
grep -q "its workers sleep between ops" "$T/out2" && fail "note on an idle capture: $(cat "$T/out2")"
echo PASS
