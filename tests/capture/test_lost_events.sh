#!/bin/bash
# A ring buffer far too small for a burst of syscalls: the traced program is not slowed down
# to wait for us, events are dropped and counted; "ioreel record" says "lost N of M events",
# exits with status 3, and the trace is still whole and carries lost_events=N.
source "$(dirname "$0")/lib.sh"

# 200000 one-byte reads and writes: 400000 events into a 16 KiB buffer (about 100 events)
"$IOREEL" record -q --buffer-kb 16 -o "$dir/t.reel" -- \
	dd if=/dev/zero of="$dir/z" bs=1 count=200000 status=none 2> "$dir/rec.err"
rc=$?
cat "$dir/rec.err"
fail=0
if [ $rc != 3 ]; then
	echo "FAIL: exit status $rc, expected 3 (events lost)"
	fail=1
fi
line=$(grep -E '^ioreel: lost [0-9]+ of [0-9]+ events$' "$dir/rec.err")
lost=$(echo "$line" | awk '{print $3}')
total=$(echo "$line" | awk '{print $5}')
if [ -z "$lost" ] || [ "$lost" -le 0 ] || [ "$total" -lt 400000 ]; then
	echo "FAIL: expected 'lost N of M events' with N > 0 and M >= 400000, got '$line'"
	fail=1
fi
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
if ! grep -qx "meta lost_events=$lost" "$dir/ops.txt"; then
	echo "FAIL: trace does not carry lost_events=$lost"
	grep '^meta' "$dir/ops.txt"
	fail=1
fi
# what was kept is still right: some of dd's one-byte writes, at their true positions
if ! grep -Eq "^op=write .* path=$dir/z .* len=1 ret=1 " "$dir/ops.txt"; then
	echo "FAIL: no write to $dir/z survived"
	fail=1
fi
[ "$(stat -c %s "$dir/z")" = 200000 ] || { echo "FAIL: the traced program was disturbed"; fail=1; }
# the loss is said where the trace is used: the replay's summary, the report's runs
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" --timing afap -o "$dir/r.reel" >"$dir/rep.out" 2>&1 ||
	{ echo "FAIL: replay: $(tail -3 "$dir/rep.out")"; fail=1; }
if ! grep -q "^  TRACE INCOMPLETE: the capture lost $lost events" "$dir/rep.out"; then
	echo "FAIL: the replay's summary does not say the capture lost $lost events"
	fail=1
fi
"$IOREEL" report "$dir/t.reel" "$dir/r.reel" 2>&1 | grep -A1 "#0 original" |
	grep -q ", $lost events lost by the capture" || {
	echo "FAIL: the report's runs do not say the capture lost $lost events"
	fail=1
}
[ $fail = 0 ] && echo "PASS"
exit $fail
