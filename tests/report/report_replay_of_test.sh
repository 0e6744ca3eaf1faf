#!/bin/bash
# report RESULT... finds the original through the result's meta replay.of, or fails: never
# takes a replay for the original. A replay writes the trace's absolute path there (it was
# the path as typed: from another directory 'ioreel report a.res b.res' silently compared
# b with a, a shown as the original); an older result's relative replay.of is tried from the
# result's own directory; a result whose trace is not found (or is another capture) is one
# line on stderr naming where it looked and saying to name the trace first, exit 2.
# usage: report_replay_of_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup replay-of "$@"
fail=0
say() { echo "FAIL: $*"; fail=1; }

mkdir "$T/x" "$T/elsewhere"
cat >"$T/x/o.txt" <<'SPEC'
meta start_wall_ns 1000
100 100 0 10 openat path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=3
100 100 20 30 pwrite64 fd=3 path=/d/f off=0 len=4096 ret=4096
100 100 40 50 pread64 fd=3 path=/d/f off=0 len=4096 ret=4096
100 100 60 70 close fd=3 path=/d/f ret=0
SPEC
"$MKTRACE" "$T/x/wl.reel" <"$T/x/o.txt" || exit 1

# a real replay, the trace named relative to the current directory
(cd "$T/x" && "$IOREEL" replay wl.reel --target "$T/t1" -o a.res >/dev/null 2>&1 &&
	"$IOREEL" replay wl.reel --target "$T/t2" --timing think -o b.res >/dev/null 2>&1) ||
	{ echo "FAIL: replay failed"; exit 1; }
"$IOREEL" info "$T/x/a.res" | grep -q "^  replay.of *$T/x/wl.reel\$" ||
	say "replay.of is not the trace's absolute path: $("$IOREEL" info "$T/x/a.res" | grep replay.of)"
(cd "$T/elsewhere" && "$IOREEL" report "$T/x/a.res" "$T/x/b.res" >"$T/r1.out" 2>"$T/r1.err")
rc=$?
[ $rc = 0 ] || say "report of two results from elsewhere: exit $rc: $(cat "$T/r1.err")"
grep -q "#0 original: $T/x/wl.reel\$" "$T/r1.out" ||
	say "the original is not wl.reel: $(grep '#0' "$T/r1.out")"
grep -q "#2 " "$T/r1.out" || say "not 2 replays beside the original"

# an older result: replay.of relative ("wl.reel"), found beside the result
cat >"$T/x/old.txt" <<'SPEC'
meta replay.of wl.reel
meta replay.of_start_wall_ns 1000
meta replay.targets /var/tmp/old
meta replay.engine sync
meta replay.timing original
100 100 0 10 openat path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=3 sched=0
100 100 20 35 pwrite64 fd=3 path=/d/f off=0 len=4096 ret=4096 sched=20
100 100 40 45 pread64 fd=3 path=/d/f off=0 len=4096 ret=4096 sched=40
100 100 60 70 close fd=3 path=/d/f ret=0 sched=60
SPEC
"$MKTRACE" "$T/x/old.res" <"$T/x/old.txt" || exit 1
(cd "$T/elsewhere" && "$IOREEL" report ../x/old.res >"$T/r2.out" 2>"$T/r2.err")
rc=$?
[ $rc = 0 ] || say "relative replay.of: exit $rc: $(cat "$T/r2.err")"
grep -q "#0 original: \.\./x/wl.reel\$" "$T/r2.out" ||
	say "relative replay.of: the original is not ../x/wl.reel: $(grep '#0' "$T/r2.out")"

# the trace is gone: one clear line, exit 2, no report
mv "$T/x/wl.reel" "$T/x/moved.reel"
(cd "$T/elsewhere" && "$IOREEL" report "$T/x/a.res" "$T/x/b.res" >"$T/r3.out" 2>"$T/r3.err")
rc=$?
cat "$T/r3.err"
[ $rc = 2 ] || say "trace missing: exit $rc, want 2"
[ ! -s "$T/r3.out" ] || say "trace missing: a report was printed: $(head -3 "$T/r3.out")"
[ "$(wc -l <"$T/r3.err")" = 1 ] && grep -q "$T/x/a.res is a replay result.* not at $T/x/wl.reel .*name the trace first: ioreel report TRACE RESULT" "$T/r3.err" ||
	say "trace missing: not the one line wanted"
# named first, the report works
"$IOREEL" report "$T/x/moved.reel" "$T/x/a.res" "$T/x/b.res" >"$T/r4.out" 2>"$T/r4.err" ||
	say "trace named first: exit $?: $(cat "$T/r4.err")"

# another capture where the relative replay.of points: not taken for the original
sed 's/^meta start_wall_ns 1000/meta start_wall_ns 2000/' "$T/x/o.txt" | "$MKTRACE" "$T/x/wl.reel" || exit 1
(cd "$T/elsewhere" && "$IOREEL" report ../x/old.res >"$T/r5.out" 2>"$T/r5.err")
rc=$?
[ $rc = 2 ] || say "another capture at replay.of: exit $rc, want 2"

[ $fail = 0 ] && echo PASS
exit $fail
