#!/bin/bash
# An async request id submitted again while its earlier request is still in flight, with no
# completion record for the earlier one (the trace's completion takes the later): the earlier
# request is freed once it has completed. It was forgotten, its 1 MiB buffer with it: 150
# such pairs per engine kept ~200 MiB to the end of the replay. Both engines (io_uring,
# libaio); every op must still end as in the trace. The pairs are 10 ms apart: a replay
# running late on a busy machine catches up in a burst, with all of them in flight at once
# (2 ms apart, one such run peaked at 131 MiB).
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time (GNU time) to measure peak RSS"; exit 77; }

python3 - >"$T/spec" <<'PY'
M = 1 << 20
print("100 100 0 1 openat path=/d/big flags=O_RDONLY ret=3")
print(f"100 100 2 3 pread64 fd=3 off={63 * M} len={M} ret={M}")
t = 10
for kind, sub in (("uring", 22), ("aio", 0)):
    for i in range(150):
        # two submits of id 1, 1 us apart: the first is still reading its 1 MiB
        for j in range(2):
            print(f"100 100 {t} {t} {kind}_submit fd=3 ctx=0x77 aux=1 subop={sub} "
                  f"off={(i % 64) * M} len={M} ret=1")
            t += 1
        t += 10000
    print(f"100 100 {t - 10001} {t} {kind}_complete fd=3 ctx=0x77 aux=1 subop={sub} "
          f"off={(i % 64) * M} len={M} ret={M}")
    t += 2000
print(f"100 100 {t} {t + 1} close fd=3 ret=0")
PY
mk t <"$T/spec"
/usr/bin/time -f "rss_kib=%M" -o "$T/time" "$IOREEL" replay "$T/t.reel" --target "$T/tgt" \
	--timing original -o "$T/r.reel" >"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" &&
	grep -q "ops not replayed: 0" "$T/out" || fail "an op lost or differing: $(cat "$T/out")"
check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
kib=$(sed -n 's/^rss_kib=//p' "$T/time")
echo "peak RSS with 300 requests whose id was reused in flight: $((kib / 1024)) MiB"
[ "$kib" -lt $((64 * 1024)) ] || fail "peak RSS $((kib / 1024)) MiB: requests reused in flight kept"
echo PASS
