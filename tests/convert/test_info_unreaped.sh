#!/bin/bash
# ioreel info counts the async requests submitted with no completion in the trace: a
# recording of QEMU's aio=native (libaio reaped from the ring in user space) held 20,000
# aio_submits and no completion, and info said nothing of it but the counts by type. Here 6
# libaio requests submitted, 2 completed, 1 refused at submission (never in flight); 3
# io_uring requests, all completed: 3 unreaped, in the text and the JSON.
# usage: test_info_unreaped.sh IOREEL REPLAY_MKTRACE
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
python3 - >"$dir/spec" <<'PY'
print("100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3")
for i in range(6):
    a = "fd=3 ctx=7 aux=%d subop=0 off=%d len=4096" % (i, i * 4096)
    print("100 100 %d %d aio_submit %s ret=%s" % (100 + i, 100 + i, a, "-11" if i == 5 else "1"))
    if i < 2:
        print("100 100 %d %d aio_complete %s ret=4096" % (100 + i, 200 + i, a))
for i in range(3):
    a = "fd=3 ctx=9 aux=%d subop=22 off=%d len=4096" % (i, i * 4096)
    print("100 100 %d %d uring_submit %s ret=1" % (300 + i, 300 + i, a))
    print("100 100 %d %d uring_complete %s ret=4096" % (300 + i, 400 + i, a))
PY
"$MKTRACE" "$dir/t.reel" <"$dir/spec" || { echo "FAIL: mktrace"; exit 1; }
"$IOREEL" info "$dir/t.reel" >"$dir/info.txt" || { echo "FAIL: info exit $?"; exit 1; }
grep -Eq '^unreaped +3 async requests submitted with no completion in the trace' "$dir/info.txt" ||
	{ echo "FAIL: info does not count the 3 requests never completed"; cat "$dir/info.txt"; exit 1; }
n=$("$IOREEL" info --json "$dir/t.reel" | python3 -c 'import json,sys; print(json.load(sys.stdin)["async_unreaped"])')
[ "$n" = 3 ] || { echo "FAIL: info --json async_unreaped $n, want 3"; exit 1; }
echo PASS
