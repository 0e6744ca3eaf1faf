#!/bin/bash
# report: the original given again as a RESULT is refused (it compared the trace with itself,
# all 1.00x, as if replayed); another recording given as a RESULT is compared as another
# capture (before/after a change), and the verdict says it is no replay (an SQLite trace
# against a PostgreSQL one read as a replay "16.3x" slower).
# usage: report_recording_given_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup recording-given "$@"

for t in a b; do
	{
		echo "meta start_wall_ns $([ $t = a ] && echo 1000 || echo 2000)"
		echo "100 100 0 10 openat path=/d/$t flags=O_RDONLY ret=3"
		for i in $(seq 1 20); do
			echo "100 100 $((i * 100)) $((i * 100 + 20)) pread64 fd=3 off=0 len=4096 ret=4096"
		done
	} | "$MKTRACE" "$T/$t.reel" || exit 1
done
"$IOREEL" report "$T/a.reel" "$T/a.reel" >"$T/out" 2>&1 && { echo "FAIL: the original as its own result"; exit 1; }
grep -q "failed to report on $T/a.reel: it is the original trace itself" "$T/out" ||
	{ echo "FAIL: $(cat "$T/out")"; exit 1; }
"$IOREEL" report "$T/a.reel" "$T/b.reel" >"$T/out" 2>&1 || { echo "FAIL: two captures: $(cat "$T/out")"; exit 1; }
grep -q "$T/b.reel is a recording, not a replay of the original: it is compared as another capture" "$T/out" ||
	{ sed -n '/verdict/,$p' "$T/out"; echo "FAIL: no note that b is a recording"; exit 1; }
echo PASS
