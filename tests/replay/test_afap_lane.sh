#!/bin/bash
# As fast as possible, plain positioned reads and writes take the worker's lane
# (replay_worker.c, worker__plain), which skips the general path's work per op. Its results
# must be the general path's to the field: the same records per thread, in the same order,
# with the same fields but the times (IOREEL_TEST_NO_LANE=1 turns the lane off), and the same
# outcomes counted and named in the summary. The trace mixes what the lane takes (pread64,
# pwrite64, read, write on open fds) with what it leaves to the general path: ops that wait
# for another thread's (the same bytes), a read larger than the buffer so far, an fd never
# opened, a short read in the original and a write that failed there (the general path's:
# it knows what makes an op that failed fail again). The result's meta
# counts the ops the lane took: some with it, none without.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
print("1 1 0 1 openat path=/d/f flags=O_RDONLY ret=4")
print("1 1 1 2 openat path=/d/g flags=O_RDWR ret=5")
t = 10
for i in range(200):
    tid = 1 + i % 2
    if i % 5 == 0:
        print(f"1 {tid} {t} {t+1} pwrite64 fd=5 off={(i % 16) * 4096} len=4096 ret=4096")
    elif i % 5 == 1:
        print(f"1 {tid} {t} {t+1} read fd=4 off={(i % 8) * 4096} len=4096 ret=4096")
    elif i % 5 == 2:
        print(f"1 {tid} {t} {t+1} write fd=5 off={65536 + (i % 4) * 512} len=512 ret=512")
    else:
        print(f"1 {tid} {t} {t+1} pread64 fd=4 off={(i % 8) * 4096} len=4096 ret=4096")
    t += 2
print(f"1 1 {t} {t+1} pread64 fd=4 off=0 len=4096 ret=100")
print(f"1 2 {t+2} {t+3} pread64 fd=4 off=0 len=262144 ret=262144")
print(f"1 1 {t+4} {t+5} pread64 fd=9 off=0 len=4096 ret=4096")
print(f"1 2 {t+6} {t+7} pwrite64 fd=5 off=0 len=4096 ret=-28")
print(f"1 1 {t+8} {t+9} pread64 fd=4 off=4096 len=4096 ret=4096")
print(f"1 1 {t+10} {t+11} close fd=4 ret=0")
print(f"1 1 {t+12} {t+13} close fd=5 ret=0")
PY
mk t <"$T/spec"

# run NAME [ENV...]: a fresh replay as fast as possible into $T/NAME.reel, its summary in
# $T/NAME.out
run() {
	local name=$1
	shift
	rm -rf "$T/tgt"
	env "$@" timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap \
		-o "$T/$name.reel" >"$T/$name.out" 2>&1 || fail "$name: status $?: $(cat "$T/$name.out")"
	"$IOREEL" dump --format jsonl "$T/$name.reel" >"$T/$name.jsonl" || fail "$name: dump"
	"$IOREEL" info "$T/$name.reel" >"$T/$name.info" 2>&1 || fail "$name: info"
	# the outcomes counted and named: from "outcomes differing" to the latency table
	sed -n '/outcomes differing/,/^  latency/p' "$T/$name.out" | grep -v '^  latency' \
		>"$T/$name.outcomes"
}
run lane
run general IOREEL_TEST_NO_LANE=1

python3 - "$T/lane.jsonl" "$T/general.jsonl" <<'PY' || fail "the lane's results differ from the general path's"
import json, sys
TIMES = ("start_ns", "end_ns", "sched_ns", "wait_ns")
def per_thread(path):
    out = {}
    for line in open(path):
        o = json.loads(line)
        out.setdefault(o["tid"], []).append({k: v for k, v in o.items() if k not in TIMES})
    return out
a, b = per_thread(sys.argv[1]), per_thread(sys.argv[2])
assert a.keys() == b.keys(), (a.keys(), b.keys())
for tid in a:
    assert len(a[tid]) == len(b[tid]), (tid, len(a[tid]), len(b[tid]))
    for x, y in zip(a[tid], b[tid]):
        assert x == y, (tid, x, y)
n = sum(len(v) for v in a.values())
assert n == 208, n
PY
diff "$T/lane.outcomes" "$T/general.outcomes" >&2 || fail "the summaries' outcomes differ"
grep -q "outcomes differing from the original: 1" "$T/lane.outcomes" ||
	fail "outcomes: $(cat "$T/lane.outcomes")"
grep -q "original 100, replay 4096" "$T/lane.outcomes" || fail "the short read is not named"
lane=$(sed -n 's/^ *replay\.lane_ops  *//p' "$T/lane.info")
general=$(sed -n 's/^ *replay\.lane_ops  *//p' "$T/general.info")
[ -n "$lane" ] && [ "$lane" -ge 50 ] || fail "the lane took ${lane:-no} ops (50 or more expected)"
[ "$general" = 0 ] || fail "IOREEL_TEST_NO_LANE=1, yet the lane took $general ops"
echo "ok: $lane of 208 ops through the lane, results alike"
