#!/bin/bash
# A worker that has run out of items sleeps until the dispatcher gives it more or says the
# trace has ended. The end does not move the queue's tail, so a worker that slept on the tail
# and took its last look just before the end was said slept for good, the replay hung (seen
# once in ~10 as-fast-as-possible replays on a loaded machine). IOREEL_TEST_IDLE_DELAY_MS
# widens that window, between the worker's last look and its sleep, to 300 ms: the end comes
# inside it in every replay here, in both timings and with more threads than cores.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
print("100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3")
t = 20
for i in range(2000):
    for tid in (101, 102, 103, 104):
        print(f"100 {tid} {t} {t + 1} pread64 fd=3 off={(i % 16) * 4096} len=4096 ret=4096")
    t += 1000
print(f"100 100 {t} {t + 1} close fd=3 ret=0")
PY
mk t <"$T/spec"

for timing in afap original; do
	rm -rf "$T/tgt"
	start=$(date +%s%N)
	IOREEL_TEST_IDLE_DELAY_MS=300 timeout -s KILL 30 "$IOREEL" replay "$T/t.reel" \
		--target "$T/tgt" --timing "$timing" -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "timing $timing: status $? (137: hung, a worker slept through the end): $(tail -3 "$T/out")"
	ms=$((($(date +%s%N) - start) / 1000000))
	grep -q "outcomes differing from the original: 0" "$T/out" || fail "timing $timing: $(cat "$T/out")"
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	echo "timing $timing: ended in $ms ms"
done
echo "PASS"
