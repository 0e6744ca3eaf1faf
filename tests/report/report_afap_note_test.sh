#!/bin/bash
# report: the note on an afap replay says its ops queued as they never did only where they
# could: the original had several threads (or async requests). One thread of syscalls has
# one op in flight either way; its note says only that the time between ops is gone (a dd
# replayed afap was said to have queued).
# usage: report_afap_note_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup afap-note "$@"

for threads in 1 2; do
	{
		for t in $(seq 1 $threads); do
			fd=$((2 + t))
			echo "100 $((100 + t)) $t 10 openat path=/d/f$t flags=O_RDONLY ret=$fd"
			for i in $(seq 1 20); do
				s=$((i * 1000 + t))
				echo "100 $((100 + t)) $s $((s + 20)) pread64 fd=$fd off=0 len=4096 ret=4096"
			done
		done
	} | sort -k3,3n >"$T/o.txt"
	"$MKTRACE" "$T/o.reel" <"$T/o.txt" || exit 1
	"$IOREEL" replay "$T/o.reel" --target "$T/tgt" -T afap -q -o "$T/r.reel" || exit 1
	"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" || { cat "$T/out"; exit 1; }
	if [ $threads = 1 ]; then
		grep -q "ran as fast as possible: its ops went back to back" "$T/out" &&
			! grep -q "queued as they never did" "$T/out" ||
			{ grep -A12 verdict "$T/out"; echo "FAIL: 1 thread: the note"; exit 1; }
	else
		grep -q "ran as fast as possible: its ops queued as they never did" "$T/out" ||
			{ grep -A12 verdict "$T/out"; echo "FAIL: 2 threads: the note"; exit 1; }
	fi
done
echo PASS
