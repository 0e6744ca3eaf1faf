#!/bin/bash
# SIGTERM (as Ctrl-C's SIGINT) ends a capture cleanly: exit status 0, the footer written
# (lost_events is a footer meta), the ops up to then in the trace; the followed process is
# left running, untouched. The recorder says it was interrupted, and the trace says so
# (meta capture.stopped_by=signal); with -- CMD, that CMD is still running, unrecorded.
source "$(dirname "$0")/lib.sh"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; [ -n "$cmd" ] && kill $cmd 2>/dev/null; rm -rf "$dir"' EXIT
cmd=
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
grep -qx "meta capture.stopped_by=signal" "$dir/ops.txt" ||
	{ echo "FAIL: no meta capture.stopped_by=signal"; fail=1; }
grep -q "^ioreel: interrupted by SIGTERM after [0-9.]* s$" "$dir/rec.err" ||
	{ echo "FAIL: record did not say it was interrupted:"; cat "$dir/rec.err"; fail=1; }
grep -qx "meta capture.stop_signal=SIGTERM" "$dir/ops.txt" ||
	{ echo "FAIL: no meta capture.stop_signal=SIGTERM"; fail=1; }
"$IOREEL" info "$dir/t.reel" | grep -q "^stopped by    signal (SIGTERM)$" ||
	{ echo "FAIL: info does not say the capture was stopped by a signal"; fail=1; }

# -- CMD: SIGINT to the recorder alone (not to its process group, as Ctrl-C would)
"$IOREEL" record -q -o "$dir/c.reel" -- sh -c "echo \$\$ > $dir/cmd.pid; while :; do cat $dir/f > /dev/null 2>&1; sleep 0.05; done" 2> "$dir/rec2.err" &
rec=$!
for i in $(seq 200); do [ -s "$dir/cmd.pid" ] && break; sleep 0.05; done
cmd=$(cat "$dir/cmd.pid")
sleep 0.5
kill -INT $rec
wait $rec
rc=$?
[ $rc = 0 ] || { echo "FAIL: record -- CMD exited $rc after SIGINT"; cat "$dir/rec2.err"; fail=1; }
kill -0 $cmd 2>/dev/null || { echo "FAIL: the command did not survive"; fail=1; }
grep -q "^ioreel: interrupted by SIGINT after [0-9.]* s; sh (pid $cmd) is still running, no longer recorded$" "$dir/rec2.err" ||
	{ echo "FAIL: record did not say the command is left running:"; cat "$dir/rec2.err"; fail=1; }
"$PRINT" "$dir/c.reel" | grep -qx "meta capture.stopped_by=signal" ||
	{ echo "FAIL: -- CMD: no meta capture.stopped_by=signal"; fail=1; }
"$PRINT" "$dir/c.reel" | grep -qx "meta capture.stop_signal=SIGINT" ||
	{ echo "FAIL: -- CMD: no meta capture.stop_signal=SIGINT"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
