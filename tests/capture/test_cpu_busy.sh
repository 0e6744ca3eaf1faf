#!/bin/bash
# The recorder writes how busy the machine's CPUs were while it recorded (meta
# capture.cpu_busy, the share of all CPUs' time, 0-1), and a replay how busy they were while
# it replayed (replay.cpu_busy): the report sets them side by side, since a replay on idle
# CPUs of an application that kept them busy reads its short syscalls as slower
# (tests/bench_replay/idle_cpus.sh). A command that computes for 1.5 s between its writes
# keeps one CPU busy: at least 0.7 / CPUs (other processes only add to it); one that sleeps
# between the same writes, replayed, keeps none busy but what else runs.
source "$(dirname "$0")/lib.sh"
ncpu=$(nproc)

cat >"$dir/burn.py" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
end = time.time() + 1.5
i = 0
while time.time() < end:
    x = 0
    for k in range(20000):
        x += k * k
    os.pwrite(fd, b"x" * 4096, (i % 64) * 4096)
    i += 1
os.close(fd)
PY
"$IOREEL" record -q -o "$dir/t.reel" -- python3 "$dir/burn.py" "$dir/f" ||
	{ echo "FAIL: record"; exit 1; }
busy=$("$IOREEL" info "$dir/t.reel" | awk '$1 == "capture.cpu_busy" { print $2 }')
[ -n "$busy" ] || { echo "FAIL: no capture.cpu_busy in the trace's meta"; exit 1; }
awk -v b="$busy" -v n="$ncpu" 'BEGIN { exit !(b >= 0.7 / n && b <= 1) }' ||
	{ echo "FAIL: capture.cpu_busy $busy for a command keeping 1 of $ncpu CPUs busy"; exit 1; }

"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -o "$dir/r.reel" >"$dir/out" 2>&1 ||
	{ echo "FAIL: replay: $(cat "$dir/out")"; exit 1; }
rbusy=$("$IOREEL" info "$dir/r.reel" | awk '$1 == "replay.cpu_busy" { print $2 }')
[ -n "$rbusy" ] || { echo "FAIL: no replay.cpu_busy in the result's meta"; exit 1; }
awk -v b="$rbusy" 'BEGIN { exit !(b >= 0 && b <= 1) }' ||
	{ echo "FAIL: replay.cpu_busy $rbusy out of 0-1"; exit 1; }
grep -q "CPUs [0-9]*% busy during the replay (the capture: [0-9]*%)" "$dir/out" ||
	{ echo "FAIL: the report does not set the two side by side: $(cat "$dir/out")"; exit 1; }
echo "PASS: capture.cpu_busy $busy, replay.cpu_busy $rbusy on $ncpu CPUs"
