#!/bin/bash
# A traced io_uring's requests take their buffers from the ring's pool of those done with
# (actx__buf_get): a new buffer, allocated and filled for each request, held 1 MiB io_uring
# writes replayed as fast as possible at ~950 MiB/s whatever the target could take
# (tests/bench_replay/async_write.sh). Here 200 writes of 1 MiB between 200 reads of 4 KiB,
# at most 4 requests in flight: a read takes the smallest buffer kept that fits, so the 1 MiB
# buffers made are about as many as were in flight at once (200 before the pool).
source "$(dirname "$0")/lib.sh"
[ -n "${COUNT_MEMALIGN:-}" ] && [ -f "$COUNT_MEMALIGN" ] || exit 77
# the shim comes before the sanitizer runtime in sanitizer builds
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0

M=1048576 K=4096 N=400 DEPTH=4
python3 - "$N" "$DEPTH" "$M" "$K" >"$T/spec" <<'PY'
import sys
n, depth, M, K = map(int, sys.argv[1:])
print("100 100 0 1 openat path=/d/a flags=O_RDWR ret=3")
print(f"100 100 2 3 pread64 fd=3 path=/d/a off={63 * M} len={M} ret={M}")
def req(i):
    # even: a 1 MiB write; odd: a 4 KiB read (IORING_OP_WRITE 23, IORING_OP_READ 22)
    return (23, (i % 64) * M, M) if i % 2 == 0 else (22, (i % 64) * M, K)
t = 10
for i in range(n + depth):
    if i < n:
        sub, off, ln = req(i)
        print(f"100 100 {t} {t + 1} uring_submit fd=3 ctx=0x77 aux={i + 1} subop={sub} off={off} len={ln} ret=1")
    if i >= depth:
        j = i - depth
        sub, off, ln = req(j)
        print(f"100 100 {t} {t + 2} uring_complete fd=3 ctx=0x77 aux={j + 1} subop={sub} off={off} len={ln} ret={ln}")
    t += 10
print(f"100 100 {t + 100} {t + 101} close fd=3 ret=0")
PY
mk t <"$T/spec"
n=$(count_big_buffers sync)
[ "$n" -ge 1 ] || fail "no 1 MiB buffer counted ($n): shim missed it"
# the file set's preparation and the worker's own buffer take a few; the requests at most
# DEPTH + 1 (one completes while the next is submitted)
[ "$n" -le 12 ] || fail "$n buffers of 1 MiB made for 200 io_uring writes of 1 MiB, 4 in flight"
"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
done = [o for o in map(json.loads, sys.stdin) if o["op"] == "uring_complete"]
assert len(done) == 400, len(done)
assert sum(o["ret"] for o in done) == 200 * (1 << 20) + 200 * 4096, "bytes moved differ"
' || fail "the requests did not all move their bytes"
echo "1 MiB buffers made: $n, for 200 io_uring writes of 1 MiB"
echo PASS
