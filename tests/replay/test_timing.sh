#!/bin/bash
# Timing modes, measured on the result trace: original keeps the recorded gaps between op
# starts (open loop), think keeps each thread's think time after its previous op ended
# (closed loop: recorded 100 ms ops that now take microseconds shrink the run), afap is
# faster than both, --speed 2 halves the gaps. Lateness is stored per op (start - sched).
source "$(dirname "$0")/lib.sh"

# one thread: 5 ops of 100 ms recorded latency, 20 ms think time between them
{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	for i in 0 1 2 3 4; do
		s=$((1000 + i * 120000))
		echo "100 100 $s $((s + 100000)) pread64 fd=3 off=0 len=4096 ret=4096"
	done
	echo "100 100 700000 700010 close fd=3 ret=0"
} | mk t
starts() { # start times (µs) of the preads in a result
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
print(" ".join(str(o["start_ns"] // 1000) for o in map(json.loads, sys.stdin) if o["op"] == "pread64"))'
}
gaps() { # median gap between consecutive preads, µs (one late op moves two gaps)
	starts "$1" | python3 -c '
import statistics, sys
s = list(map(int, sys.stdin.read().split()))
print(round(statistics.median(b - a for a, b in zip(s, s[1:]))))'
}
within() { # value lo hi
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}
for mode in original think afap; do
	"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $mode -o "$T/$mode.reel" -q ||
		fail "replay $mode"
	check_same_ops "$T/t.reel" "$T/$mode.reel" >/dev/null
done
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --speed 2 -o "$T/speed2.reel" -q || fail "speed 2"
g=$(gaps "$T/original.reel")
# bounds allow for a loaded machine (CI shares its cores); the modes stay far apart
within "$g" 110000 140000 || fail "original: median gap $g µs, want 120000"
# think: each pread 20 ms after the previous one ended. A late wake-up is made up from the
# gaps after it (worker__think_at), so one gap alone can be short on a loaded machine; the
# last pread comes at least 4 x 20 ms after the first was due, never sooner.
g=$("$IOREEL" dump --format jsonl "$T/think.reel" | python3 -c '
import json, sys
p = [o for o in map(json.loads, sys.stdin) if o["op"] == "pread64"]
print((p[-1]["start_ns"] - p[0]["sched_ns"]) // 1000)')
within "$g" 80000 200000 || fail "think: last pread $g µs after the first was due, want ~80000 (think time + real latency)"
g=$(gaps "$T/afap.reel")
within "$g" 0 15000 || fail "afap: median gap $g µs, want < 15000"
g=$(gaps "$T/speed2.reel")
within "$g" 55000 80000 || fail "speed 2: median gap $g µs, want 60000"
# every op carries its schedule; original timing is never early and rarely very late
"$IOREEL" dump --format jsonl "$T/original.reel" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
early = [o for o in ops if o["start_ns"] + 1000 < o["sched_ns"]]
late = sorted(o["start_ns"] - o["sched_ns"] for o in ops)
want = [0, 1000, 121000, 241000, 361000, 481000, 700000]
got = [round(o["sched_ns"] / 1000) for o in ops]
drift = max(abs(g - w - (got[0] - want[0])) for g, w in zip(got, want))
print(f"schedule drift {drift} us, lateness median {late[len(late) // 2]} ns")
sys.exit(1 if early or drift > 1 or late[len(late) // 2] > 20e6 else 0)' ||
	fail "original: sched_ns/start_ns not as scheduled"
echo PASS
