#!/bin/bash
# afap times its ops with a cheaper clock (the TSC, when the kernel keeps time with it or the
# CPU says it is invariant) mapped onto CLOCK_MONOTONIC: every op of the result must lie, on
# CLOCK_MONOTONIC (result time + meta start_mono_ns), inside the window the replay command ran
# in, each end not before its start, each op not before its thread's previous one, and
# lateness (start - sched) >= 0. The result's meta names the clock: on an x86-64 CPU whose TSC
# is invariant (cpuinfo: constant_tsc and nonstop_tsc), the TSC, whatever the kernel's
# clocksource (kvm-clock on this kind of VM), and no worker went back to the clock. The meta's
# replay.syscall_ns (a getppid timed as the ops are) is in ns: a cached 4 KiB pread is a
# syscall too, so its median is not below half of it, and the getppid is not below 20 ns.
source "$(dirname "$0")/lib.sh"

python3 - > "$T/spec" <<'PY'
print("100 100 0 10 openat path=/srv/d flags=O_RDONLY ret=3")
print("100 101 0 10 openat path=/srv/e flags=O_RDONLY ret=4")
for i in range(20000):
    print(f"100 {100 + i % 2} {20 + i} {21 + i} pread64 fd={3 + i % 2} off={(i * 4096) % (1 << 20)} len=4096 ret=4096")
PY
mk t < "$T/spec"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r0.reel" --timing afap -q || fail "prepare"
before=$(python3 -c 'import time; print(time.monotonic_ns())')
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" --timing afap -q || fail "replay"
after=$(python3 -c 'import time; print(time.monotonic_ns())')
"$IOREEL" info "$T/r.reel" > "$T/info" 2>&1 || fail "info"
"$IOREEL" dump --format jsonl "$T/r.reel" > "$T/r.jsonl" || fail "dump"
python3 - "$T/r.jsonl" "$T/info" "$before" "$after" <<'PY' || fail "afap times off CLOCK_MONOTONIC"
import json, re, sys
m = re.search(r"start_mono_ns\D*(\d+)", open(sys.argv[2]).read())
assert m, "no start_mono_ns in info"
base, lo, hi = int(m.group(1)), int(sys.argv[3]), int(sys.argv[4])
m = re.search(r"replay\.syscall_ns\s+(\d+)", open(sys.argv[2]).read())
assert m, "no replay.syscall_ns in info"
sys_ns = int(m.group(1))
last = {}
n = 0
durs = []
for line in open(sys.argv[1]):
    o = json.loads(line)
    s, e, d = base + o["start_ns"], base + o["end_ns"], base + o["sched_ns"]
    assert lo <= d <= s <= e <= hi, (o, lo - base, hi - base)
    assert last.get(o["tid"], 0) <= s, ("thread went back", o)
    last[o["tid"]] = e
    n += 1
    if o["op"] == "pread64":
        durs.append(e - s)
assert n == 20002, n
durs.sort()
p50 = durs[len(durs) // 2]
assert 20 <= sys_ns <= 2 * p50, f"replay.syscall_ns {sys_ns} against the pread p50 {p50}"
print(f"getppid {sys_ns} ns, pread64 p50 {p50} ns")
PY
clock=$(sed -n 's/^ *replay\.clock  *//p' "$T/info")
[ -n "$clock" ] || fail "no replay.clock in the result's meta"
if [ "$(uname -m)" = x86_64 ] && grep -qw constant_tsc /proc/cpuinfo &&
	grep -qw nonstop_tsc /proc/cpuinfo; then
	case $clock in
	tsc*) ;;
	*) fail "an invariant TSC, but the workers timed with '$clock' (clocksource $(cat \
		/sys/devices/system/clocksource/clocksource0/current_clocksource))" ;;
	esac
	grep -q 'replay.clock.tsc_dropped *0$' "$T/info" || fail "a worker went back to the clock"
fi
echo ok
