#!/bin/bash
# The thread that replays an io_uring trace's requests takes their completions itself: after
# its submission (a read of cached pages completes in it), or at their completion record,
# waiting in the kernel. They went through the context's reaper thread, which the kernel
# woke for each and which woke the thread waiting at its record: two wake-ups per request,
# and a fio trace (4 KiB randrw, iodepth 8, tmpfs, ~200 k requests/s) replayed as fast as
# possible in 3-4x its recorded time. Here 5000 reads of 4 KiB of cached pages, one at a
# time: they cost the replay a wake-up each before (>= 5000 voluntary context switches), and
# next to none now (the replay's own threads need ~200). Their completions are all there,
# each taken once: every record with its own request's result.
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time (GNU time) to count context switches"; exit 77; }

N=5000
{
	echo "100 100 0 1 openat path=/d/a flags=O_RDONLY ret=3"
	echo "100 100 2 3 pread64 fd=3 path=/d/a off=1044480 len=4096 ret=4096"
	for i in $(seq 1 $N); do
		t=$((10 + 10 * i)) off=$(((i % 256) * 4096))
		echo "100 100 $t $t uring_submit fd=3 ctx=0x77 aux=$i subop=22 off=$off len=4096 ret=1"
		echo "100 100 $t $((t + 5)) uring_complete fd=3 ctx=0x77 aux=$i subop=22 off=$off len=4096 ret=4096"
	done
	echo "100 100 $((20 + 10 * N)) $((21 + 10 * N)) close fd=3 ret=0"
} | mk t
/usr/bin/time -f "vcsw=%w" -o "$T/time" "$IOREEL" replay "$T/t.reel" --target "$T/tgt" \
	--timing afap -o "$T/r.reel" >"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
python3 - "$T/r.jsonl" $N <<'PY' || fail "completions"
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
com = [o for o in ops if o["op"] == "uring_complete"]
n = int(sys.argv[2])
assert len(com) == n, len(com)
assert sorted(o["aux"] for o in com) == list(range(1, n + 1)), "a request taken twice, or never"
assert all(o["ret"] == 4096 for o in com), [o for o in com if o["ret"] != 4096][:3]
PY
n=$(sed -n 's/^vcsw=//p' "$T/time")
echo "voluntary context switches replaying $N io_uring reads of cached pages: $n"
[ "$n" -lt $((N / 4)) ] || fail "$n voluntary context switches for $N requests: a wake-up each"
echo PASS
