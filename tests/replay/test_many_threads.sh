#!/bin/bash
# More threads over the trace's life than can run at once (6000 short-lived ones, as a build
# or a shell script makes): workers of ended threads are reused, every thread's ops replay
# in order, and far fewer worker threads run than the trace had.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
for i in range(6000):
    pid, t = 1000 + i, 20 * i
    print(f"{pid} {pid} {t} {t + 2} openat path=/d/a flags=O_RDONLY ret=3")
    print(f"{pid} {pid} {t + 3} {t + 5} pread64 fd=3 off={(i % 8) * 4096} len=4096 ret=4096")
    print(f"{pid} {pid} {t + 6} {t + 8} close fd=3 ret=0")
PY
mk t <"$T/spec"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
n=$(sed -n 's/.* replayed by \([0-9]*\) threads*,.*/\1/p' "$T/out")
[ -n "$n" ] && [ "$n" -le 512 ] || fail "$n worker threads for threads that never overlapped"
check_same_ops "$T/t.reel" "$T/r.reel"
echo PASS
