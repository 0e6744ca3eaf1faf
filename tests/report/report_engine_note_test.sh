#!/bin/bash
# report_engine_note_test.sh IOREEL MKTRACE - a trace of syscalls replayed with --engine
# io_uring (or libaio) had its reads and writes measured as requests, from submission to
# reaping, many in flight: the engine's own cost is in them. In the trial of this round, a
# Xapian indexer's page-cached preads on tmpfs went from p50 1.9 us (sync engine) to 107 us
# (io_uring), the same target; the verdict said only "pread64 p50 rises ... slower", as if
# the storage were slower. The verdict says what the engine changed; a replay with the sync
# engine gets no such note. Exit 0 pass.
source "$(dirname "$0")/lib.sh"
report_setup engine_note "$@"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

spec() { # spec ENGINE LAT: a replay with that engine (none: the original), preads LAT us
	python3 - "$1" "$2" <<'PY'
import sys
eng, lat, t = sys.argv[1], int(sys.argv[2]), 0
if eng != "none":
    print(f"meta replay.engine {eng}")
    print("meta replay.timing original")
    print(f"meta replay.targets /dev/shm/{eng}")
print(f"1 1 {t} {t + 5} openat path=/d/f flags=O_RDWR ret=3")
t += 10
for i in range(200):
    print(f"1 1 {t} {t + lat} pread64 fd=3 off=0 len=4096 ret=4096 sched={t}")
    t += 200
PY
}
spec none 2 | "$MKTRACE" "$T/orig.reel" || fail "replay_mktrace orig"
spec io_uring 100 | "$MKTRACE" "$T/uring.reel" || fail "replay_mktrace uring"
spec sync 100 | "$MKTRACE" "$T/sync.reel" || fail "replay_mktrace sync"
"$IOREEL" report "$T/orig.reel" "$T/uring.reel" "$T/sync.reel" >"$T/out" 2>&1 ||
	fail "report: $(cat "$T/out")"
v=$(sed -n '/^verdict/,$p' "$T/out")
grep -q "on /dev/shm/io_uring the application's reads and writes, syscalls in the original, went out as io_uring requests" <<<"$v" ||
	fail "no note on the io_uring engine: $v"
grep -q "on /dev/shm/sync the application's" <<<"$v" && fail "note on the sync engine: $v"
echo PASS
