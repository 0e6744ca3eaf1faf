#!/bin/bash
# --spin: a read or write is prepared (fd looked up, result slot set up) ahead of its
# schedule and its syscall goes at the schedule, so that the preparation is not lateness. A
# test knob makes each preparation take 10 us (as a first use's open of an inherited fd
# does): with --spin the ops still start on time, never early (without the lead, each one
# was the preparation's 10 us late).
source "$(dirname "$0")/lib.sh"

# one thread (times in us): 200 reads and writes 2 ms apart, an fstat between some of them
{
	echo "100 100 0 10 openat path=/d/a flags=O_RDWR ret=3"
	for i in $(seq 0 199); do
		s=$((1000 + i * 2000))
		if [ $((i % 4)) = 3 ]; then
			echo "100 100 $s $((s + 5)) pwrite64 fd=3 off=$((i * 4096)) len=4096 ret=4096"
		else
			echo "100 100 $s $((s + 5)) pread64 fd=3 off=$((i * 4096)) len=4096 ret=4096"
		fi
		[ $((i % 10)) = 5 ] && echo "100 100 $((s + 900)) $((s + 901)) fstat fd=3 ret=0"
	done
	echo "100 100 500000 500010 close fd=3 ret=0"
} | mk t

# lateness of the reads and writes of a result: "least, median, % within 5 us" (ns)
lateness() {
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
late = sorted(o["start_ns"] - o["sched_ns"] for o in map(json.loads, sys.stdin)
              if o["op"] in ("pread64", "pwrite64"))
print(late[0], late[len(late) // 2], 100 * sum(1 for l in late if l < 5000) // len(late))'
}

IOREEL_TEST_PREP_NS=10000 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --spin \
	-o "$T/spin.reel" >"$T/out" 2>&1 || fail "replay --spin: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "--spin: outcomes differ"
check_same_ops "$T/t.reel" "$T/spin.reel" >/dev/null
read -r min med within < <(lateness "$T/spin.reel")
echo "--spin, 10 us preparation: lateness least $min ns, median $med ns, $within % within 5 us"
[ "$min" -ge 0 ] || fail "--spin: an op started $((-min)) ns before its schedule"
# prepared ahead, an op starts at its spin's end, well within the preparation's 10 us; a
# spinning thread on a loaded machine is preempted now and then, not for most of its ops
# (without the lead none started within 10 us)
[ "$within" -ge 20 ] || fail "--spin: $within % of ops within 5 us: the preparation was not ahead"

echo PASS
