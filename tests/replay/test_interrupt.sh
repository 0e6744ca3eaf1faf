#!/bin/bash
# Ctrl-C (SIGINT) stops a long replay promptly; the result trace is still closed whole
# (readable without damage) with the ops issued so far, the summary says INTERRUPTED, and
# the exit status is 130.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	for i in $(seq 1 100); do
		echo "100 100 $((i * 50000)) $((i * 50000 + 10)) pread64 fd=3 off=0 len=4096 ret=4096"
		echo "100 101 $((i * 50000)) $((i * 50000 + 10)) stat path=/d/a ret=0"
	done
	echo "100 100 6000000 6000010 close fd=3 ret=0"
} | mk t
start=$(date +%s%N)
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
[ "$rc" = 130 ] || fail "exit status $rc, want 130: $(cat "$T/err")"
[ "$took" -lt 3000 ] || fail "took $took ms to stop"
grep -q INTERRUPTED "$T/out" || fail "summary does not say INTERRUPTED"
grep -q "interrupted (result .* kept)" "$T/err" || fail "no one-line message: $(cat "$T/err")"
"$IOREEL" info "$T/r.reel" >"$T/info" 2>&1 || fail "result damaged: $(cat "$T/info")"
n=$("$IOREEL" dump --format jsonl "$T/r.reel" | wc -l)
[ "$n" -gt 5 ] && [ "$n" -lt 150 ] || fail "result has $n ops, want those of the first ~second"
echo PASS
