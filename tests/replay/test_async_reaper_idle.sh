#!/bin/bash
# A trace's async context (io_uring, libaio) with nothing in flight costs the replay no
# wake-ups: its reaper thread sleeps until the next submission. It polled every 1 ms, so a
# trace with two contexts idle for 1.5 s cost ~3000 voluntary context switches (a thousand
# wake-ups a second per context, each able to delay a worker's). The replay's own threads
# (worker, dispatcher, writer, monitor) need ~200 for this trace.
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time (GNU time) to count context switches"; exit 77; }

mk t <<'SPEC'
100 100 0 1 openat path=/d/a flags=O_RDONLY ret=3
100 100 10 10 uring_submit fd=3 ctx=0x77 aux=1 subop=22 off=0 len=4096 ret=1
100 100 10 110 uring_complete fd=3 ctx=0x77 aux=1 subop=22 off=0 len=4096 ret=4096
100 100 20 20 aio_submit fd=3 ctx=0x78 aux=1 subop=0 off=0 len=4096 ret=1
100 100 20 120 aio_complete fd=3 ctx=0x78 aux=1 subop=0 off=0 len=4096 ret=4096
100 100 1500000 1500001 close fd=3 ret=0
SPEC
/usr/bin/time -f "vcsw=%w" -o "$T/time" "$IOREEL" replay "$T/t.reel" --target "$T/tgt" \
	-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
n=$(sed -n 's/^vcsw=//p' "$T/time")
echo "voluntary context switches over a 1.5 s replay with two idle async contexts: $n"
[ "$n" -lt 1000 ] || fail "$n voluntary context switches: an idle reaper is polling"
echo PASS
