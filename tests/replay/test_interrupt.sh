#!/bin/bash
# Ctrl-C (SIGINT) stops a long replay promptly; the result trace is still closed whole
# (readable without damage) with the ops issued so far, the summary says INTERRUPTED (and
# how much of the trace it read), the result's meta and the report with it say so, and
# the exit status is 130. With the original timing, and as fast as possible (in segments
# read ahead: stopped in the middle of one).
source "$(dirname "$0")/lib.sh"

# interrupt NAME TRACE SECONDS BYTES REPLAY-OPTIONS...: replays TRACE into $T/NAME.reel,
# Ctrl-C SECONDS after the result has grown past BYTES (the file set is prepared before the
# result is created: its 16-byte header; as fast as possible, the results of a segment are
# written after it: past 4096, a segment has run, whatever else keeps the machine busy),
# checks the stop; prints the ops the result holds
interrupt() {
	local name=$1 trace=$2 after=$3 bytes=$4 pid rc start took
	shift 4
	"$IOREEL" replay "$trace" --target "$T/tgt-$name" -o "$T/$name.reel" "$@" \
		>"$T/$name.out" 2>"$T/$name.err" &
	pid=$!
	for _ in $(seq 400); do
		[ "$(stat -c %s "$T/$name.reel" 2>/dev/null || echo 0)" -gt "$bytes" ] && break
		sleep 0.05
	done
	sleep "$after"
	start=$(date +%s%N)
	kill -INT $pid
	wait $pid
	rc=$?
	took=$((($(date +%s%N) - start) / 1000000))
	[ "$rc" = 130 ] || fail "$name: exit status $rc, want 130: $(cat "$T/$name.err")"
	[ "$took" -lt 3000 ] || fail "$name: took $took ms to stop"
	grep -q INTERRUPTED "$T/$name.out" || fail "$name: summary does not say INTERRUPTED"
	grep -q "interrupted (result .* kept)" "$T/$name.err" ||
		fail "$name: no one-line message: $(cat "$T/$name.err")"
	"$IOREEL" info "$T/$name.reel" >"$T/$name.info" 2>&1 ||
		fail "$name: result damaged: $(cat "$T/$name.info")"
	grep -q "^  ops: [0-9]* of the trace's [0-9]* read before the stop" "$T/$name.out" ||
		fail "$name: summary: $(grep ' ops:' "$T/$name.out")"
	# the result says it is part of a run, and the report with it
	grep -q "replay.interrupted_after_ops [0-9]" "$T/$name.info" ||
		fail "$name: result meta: no replay.interrupted_after_ops"
	"$IOREEL" report "$trace" "$T/$name.reel" >"$T/$name.rep" 2>&1
	grep -q ", INTERRUPTED after [0-9]* ops of the trace" "$T/$name.rep" &&
		grep -q "^  - replay on .* was interrupted after [0-9]* of the original's" "$T/$name.rep" ||
		fail "$name: the report does not say the replay was interrupted: $(head -12 "$T/$name.rep")"
	"$IOREEL" dump --format jsonl "$T/$name.reel" | wc -l
}

{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	for i in $(seq 1 100); do
		echo "100 100 $((i * 50000)) $((i * 50000 + 10)) pread64 fd=3 off=0 len=4096 ret=4096"
		echo "100 101 $((i * 50000)) $((i * 50000 + 10)) stat path=/d/a ret=0"
	done
	echo "100 100 6000000 6000010 close fd=3 ret=0"
} | mk t
n=$(interrupt original "$T/t.reel" 1 0) || exit 1
[ "$n" -gt 5 ] && [ "$n" -lt 150 ] || fail "original: result has $n ops, want those of the first ~second"

# as fast as possible: 2 threads, 3 M reads (several segments, ~2 s)
"$GEN_TRACE" --mode afap -o "$T/long.reel" -t 2 -n 3000000 -s $((16 << 20)) --seed 7 ||
	fail "gen_trace"
n=$(interrupt afap "$T/long.reel" 0.2 4096 --timing afap) || exit 1
[ "$n" -gt 0 ] && [ "$n" -lt 3000000 ] || fail "afap: result has $n ops"
echo PASS
