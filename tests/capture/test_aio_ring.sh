#!/bin/bash
# libaio reaped from the ring in user space (QEMU's aio=native): no io_getevents shows the
# completions, and a recording of `qemu-img bench -i native` held 20,000 submissions and no
# completion (the report: "175 ops measured, 790 us of I/O"). The recorder looks at the ring on
# the thread's syscalls: each of the 64 reads must complete in the trace, once, paired with
# its request, no sooner than its submission. And a program that reaps with io_getevents
# (aio_many) must not have its completions twice.
source "$(dirname "$0")/lib.sh"
AIO_RING=$3
AIO_MANY=$4
head -c $((200 * 4096)) /dev/urandom > "$dir/f" || exit 1
"$IOREEL" record -o "$dir/t.reel" -- "$AIO_RING" "$dir/f" 2>"$dir/rec.err" ||
	{ echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" > "$dir/ops.jsonl" || { echo "FAIL: trace unreadable"; exit 1; }
python3 - "$dir/ops.jsonl" "$dir/f" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
path = sys.argv[2]
subs = {o["offset"]: o for o in ops if o["op"] == "aio_submit" and o["path"] == path}
comps = [o for o in ops if o["op"] == "aio_complete"]
fail = []
if len(subs) != 64:
    fail.append("%d submissions, want 64" % len(subs))
paired = [c for c in comps if c["path"] == path and c["len"] == 4096 and c["ret"] == 4096]
if len(comps) != 64 or len(paired) != 64:
    fail.append("%d completions, %d paired with a request of the file, want 64" %
                (len(comps), len(paired)))
offs = sorted(c["offset"] for c in paired)
if offs != sorted(subs):
    fail.append("completed offsets are not the submitted ones, once each")
early = [c for c in paired if c["offset"] in subs and
         (c["start_ns"] != subs[c["offset"]]["start_ns"] or c["end_ns"] < c["start_ns"])]
if early:
    fail.append("%d completions not measured from their submission on" % len(early))
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
PY
"$IOREEL" record -o "$dir/m.reel" -- "$AIO_MANY" "$dir/f" 2>"$dir/rec.err" ||
	{ echo "FAIL: record of aio_many exited $?"; cat "$dir/rec.err"; exit 1; }
comps=$("$PRINT" "$dir/m.reel" | grep -c "^op=aio_complete ")
[ "$comps" = 200 ] || { echo "FAIL: aio_many (io_getevents): $comps completions, want 200"; exit 1; }
echo PASS
