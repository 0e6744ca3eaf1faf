#!/bin/bash
# An op that waits for more threads than one queued item holds dependencies for (here an
# rmdir after 12 threads each created and removed a file in the directory): the surplus goes
# to items of their own ahead of it. The dispatcher used to wait for them itself, which as
# fast as possible (staged: the ops it waited for sat in the segment it had not released)
# hung the replay for good, deaf to SIGTERM. Every mode must finish, with the rmdir after the
# last unlink and nothing differing from the original.
source "$(dirname "$0")/lib.sh"

{
	for i in $(seq 1 12); do
		t=$((100 + i)) at=$((10 * i))
		echo "100 $t $at $((at + 1)) openat path=/d/f$i flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=$((10 + i))"
		echo "100 $t $((at + 2)) $((at + 3)) close fd=$((10 + i)) ret=0"
		echo "100 $t $((at + 4)) $((at + 5)) unlink path=/d/f$i ret=0"
	done
	echo "100 101 500 510 rmdir path=/d ret=0"
	# the threads live on past the rmdir: their workers are not handed on to other threads
	for i in $(seq 1 12); do
		echo "100 $((100 + i)) $((600 + i)) $((601 + i)) access path=/x ret=-2"
	done
} | mk t
for mode in afap think original; do
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $mode \
		-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay $mode (rc $?, 137: hung): $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		cat "$T/out"
		fail "timing $mode: an op's outcome differs"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	# the rmdir starts after every unlink has ended
	"$IOREEL" dump --format csv "$T/r.reel" | awk -F, '
		$1 == "unlink" && $5 > last { last = $5 }
		$1 == "rmdir" { rm = $4 }
		END { if (!rm || rm < last) { print "rmdir at " rm " before an unlink ended at " last; exit 1 } }' ||
		fail "timing $mode: rmdir not ordered after the unlinks"
done
echo PASS
