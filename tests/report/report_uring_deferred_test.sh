#!/bin/bash
# report_uring_deferred_test.sh IOREEL MKTRACE - when the original's io_uring rings were set
# up with IORING_SETUP_DEFER_TASKRUN (meta capture.uring_setup, as fio's are), the kernel
# posted their completions only when the application's thread waited for them, and the
# recording ends each request there; a replay's rings post each as it completes. The runs'
# summary says so under the replay's requests in flight; not for a ring without the flag,
# nor for the original alone. Exit 0 pass.
source "$(dirname "$0")/lib.sh"
report_setup uring_deferred "$@"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

spec() { # spec NAME SETUP_FLAGS ("-": none)
	python3 - "$@" <<'PY'
import sys
name, flags = sys.argv[1:3]
if flags != "-":
    print(f"meta capture.uring_setup {flags}")
if name.startswith("replay"):
    print("meta replay.engine sync")
    print("meta replay.timing afap")
    print(f"meta replay.targets /dev/shm/{name}")
print("1 1 0 5 openat path=/d/f flags=O_RDONLY ret=3")
t = 100
for i in range(64):
    a = f"fd=3 ctx=0x9 aux={i} subop=22 off={i * 4096} len=4096"
    print(f"1 1 {t} {t} uring_submit {a} ret=1")
    print(f"1 1 {t} {t + 50000} uring_complete {a} ret=4096")
    t += 60000
PY
}
spec orig "0x3108 (CQSIZE|COOP_TASKRUN|SINGLE_ISSUER|DEFER_TASKRUN)" | "$MKTRACE" "$T/o.reel" ||
	fail "replay_mktrace o"
spec orig "0xa (SQPOLL|CQSIZE)" | "$MKTRACE" "$T/o2.reel" || fail "replay_mktrace o2"
spec replay - | "$MKTRACE" "$T/r.reel" || fail "replay_mktrace r"
note="rings deferred completions to its waits (IORING_SETUP_DEFER_TASKRUN)"
"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
[ "$(grep -c "$note" "$T/out")" = 1 ] || fail "want the note once, under the replay: $(cat "$T/out")"
grep -A1 "async requests, .* (the original: " "$T/out" | grep -q "$note" ||
	fail "the note not under the replay's requests in flight: $(cat "$T/out")"
"$IOREEL" report "$T/o2.reel" "$T/r.reel" >"$T/out2" 2>&1 || fail "report 2"
grep -q "DEFER_TASKRUN" "$T/out2" && fail "a note for a ring without it: $(cat "$T/out2")"
"$IOREEL" report "$T/o.reel" >"$T/out3" 2>&1 || fail "report 3"
grep -q "DEFER_TASKRUN" "$T/out3" && fail "a note with no replay: $(cat "$T/out3")"
echo PASS
