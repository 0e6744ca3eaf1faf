#!/bin/bash
# SIGTERM (as Ctrl-C's SIGINT) ends a capture cleanly: exit status 0, the footer written
# (lost_events is a footer meta), the ops up to then in the trace; the followed process is
# left running, untouched.
source "$(dirname "$0")/lib.sh"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
sh -c "while :; do cat $dir/f > /dev/null 2>&1; sleep 0.05; done" &
pid=$!
"$IOREEL" record -o "$dir/t.reel" -p $pid 2> "$dir/rec.err" &
rec=$!
for i in $(seq 200); do grep -q recording "$dir/rec.err" && break; sleep 0.05; done
sleep 0.5
kill -TERM $rec
wait $rec
rc=$?
fail=0
[ $rc = 0 ] || { echo "FAIL: record exited $rc after SIGTERM"; cat "$dir/rec.err"; fail=1; }
kill -0 $pid 2>/dev/null || { echo "FAIL: the followed process did not survive"; fail=1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
grep -qx "meta lost_events=0" "$dir/ops.txt" || { echo "FAIL: no footer"; fail=1; }
grep -Eq "^op=openat .* path=$dir/f .* ret=-2 " "$dir/ops.txt" ||
	{ echo "FAIL: the loop's failed opens are not in the trace"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
