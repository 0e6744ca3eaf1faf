#!/bin/bash
# An op that waits for more threads than the dispatcher's dependency set held (64): an rmdir
# after 80 threads each created and removed a file in the directory. The threads beyond the
# 64th were left out of its dependencies, silently: the last 15 here, slowed by 2000 stats
# each before they touch the directory, had their create and unlink run after the rmdir
# (ENOENT, ENOTEMPTY). Every thread's ops must come before the rmdir, as in the original.
source "$(dirname "$0")/lib.sh"

N=80 SLOW=66
{
	for i in $(seq $SLOW $N); do
		for k in $(seq 1 2000); do
			echo "100 $((1000 + i)) $k $k stat path=/x ret=-ENOENT"
		done
	done
	for i in $(seq 1 $N); do
		t=$((1000 + i)) at=$((3000 + 10 * i))
		echo "100 $t $at $((at + 1)) openat path=/d/f$i flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=$((10 + i))"
		echo "100 $t $((at + 2)) $((at + 3)) close fd=$((10 + i)) ret=0"
		echo "100 $t $((at + 4)) $((at + 5)) unlink path=/d/f$i ret=0"
	done
	echo "100 1001 5000 5010 rmdir path=/d ret=0"
	# the threads live on past the rmdir: their workers are not handed on to other threads
	for i in $(seq 1 $N); do
		echo "100 $((1000 + i)) $((6000 + i)) $((6001 + i)) access path=/x ret=-ENOENT"
	done
} | mk t
for mode in afap think; do
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $mode \
		-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay $mode (rc $?): $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		grep -A6 "outcomes differing" "$T/out"
		fail "timing $mode: an op ran after the rmdir it came before"
	}
	"$IOREEL" dump --format csv "$T/r.reel" | awk -F, '
		$1 == "unlink" && $5 > last { last = $5 }
		$1 == "rmdir" { rm = $4 }
		END { if (!rm || rm < last) { print "rmdir at " rm " before an unlink ended at " last; exit 1 } }' ||
		fail "timing $mode: rmdir not ordered after the unlinks"
done
echo PASS
