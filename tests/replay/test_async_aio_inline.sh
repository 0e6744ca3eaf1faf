#!/bin/bash
# A libaio request that completes within io_submit (buffered, or on tmpfs) is stamped done by
# the thread that submitted it, right after its submission, not when the context's reaper
# thread, woken for it, found it: QEMU's 4 KiB reads of its image on tmpfs (aio=native,
# 1.9 us at p50 from submission to completion) replayed on tmpfs at 4.75 us ("2.5x slower"),
# and its replay with original timing took 470 ms for the original's 205 (the reaper woken
# for every request). A libaio request ends when its thread reaps it (the recording's end:
# the exit of io_getevents), at its completion record, from when the application's
# io_getevents went in on the schedule (its previous record's end, here its submission):
# here 200 buffered reads, each completion record due 300 us after its submission, end where
# their thread came to their record, right after the submission, not when it was due.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
print("100 100 0 1 openat path=/d/a flags=O_RDONLY ret=3")
for i in range(200):
    t = 100 + i * 500
    a = "fd=3 ctx=0x78 aux=%d subop=0 off=%d len=4096" % (i, i * 4096)
    print("100 100 %d %d aio_submit %s ret=1" % (t, t, a))
    print("100 100 %d %d aio_complete %s ret=4096" % (t, t + 300, a))
print("100 100 200000 200001 close fd=3 ret=0")
PY
mk t <"$T/spec"
replay_as_traced original "a buffered libaio read ended otherwise than in the trace"
"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
python3 - "$T/r.jsonl" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
sub = {o["offset"]: o for o in ops if o["op"] == "aio_submit"}
comp = [o for o in ops if o["op"] == "aio_complete"]
before = [c for c in comp if c["end_ns"] < sub[c["offset"]]["end_ns"]]
# (on a loaded machine a submission may come 300 us late: its completion follows it; only
# those submitted 50 us or more before their record was due are asked to end before it)
ontime = [c for c in comp if sub[c["offset"]]["end_ns"] < c["sched_ns"] - 50000]
due = [c for c in ontime if c["end_ns"] >= c["sched_ns"]]
lat = sorted(c["end_ns"] - c["start_ns"] for c in comp)
print("of %d completions %d ended before their submit record; of the %d submitted in time, "
      "%d when their record was due or later; latency p50 %.1f us"
      % (len(comp), len(before), len(ontime), len(due), lat[len(lat) // 2] / 1e3))
if len(comp) != 200 or before or len(ontime) < 100 or len(due) > len(ontime) // 50:
    print("FAIL: a request completed within io_submit did not end where its thread came to "
          "its completion record, after its submission")
    sys.exit(1)
PY
echo PASS
