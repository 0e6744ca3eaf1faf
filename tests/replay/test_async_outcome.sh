#!/bin/bash
# The trace's own async requests (libaio, io_uring) are checked as the sync ops are: a
# completion whose replayed request read fewer bytes than the original's result, or
# succeeded where it failed, is an outcome that differs, counted and named in the summary.
# Here the file is cut to 4 KiB before a request reads its second 4 KiB (the original read
# them all: a hand-made trace), and a request whose original completed with -EIO succeeds.
source "$(dirname "$0")/lib.sh"

for kind in aio uring; do
	case $kind in
	aio) ctx=0x77 sub=0 ;;     # IOCB_CMD_PREAD
	uring) ctx=9 sub=22 ;;     # IORING_OP_READ
	esac
	{
		echo "100 100 0 1 openat path=/d/f flags=O_RDWR ret=3"
		echo "100 100 10 11 pread64 fd=3 path=/d/f off=0 len=8192 ret=8192"
		echo "100 100 20 21 ftruncate fd=3 path=/d/f len=4096 ret=0"
		for i in 1 2 3; do
			t=$((100 + 100 * i))
			case $i in
			1) off=0 ret=4096 ;;    # as the original: no difference
			2) off=4096 ret=4096 ;; # beyond the cut: the replay reads 0 bytes
			3) off=0 ret=-5 ;;      # the original failed, the replay's succeeds
			esac
			req="fd=3 path=/d/f ctx=$ctx aux=$i subop=$sub off=$off len=4096"
			echo "100 100 $t $t ${kind}_submit $req ret=1"
			echo "100 100 $t $((t + 50)) ${kind}_complete $req ret=$ret"
		done
		echo "100 100 1000 1001 close fd=3 ret=0"
	} | mk t
	for timing in original afap; do
		what="$kind, timing $timing"
		rm -rf "$T/tgt"
		timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $timing \
			-o "$T/r.reel" >"$T/out" 2>&1 ||
			fail "$what: status $? (137: hung): $(cat "$T/out")"
		check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
		grep -q "outcomes differing from the original: 2$" "$T/out" &&
			grep -q "1 short read/write/copy" "$T/out" &&
			grep -q "${kind}_complete /d/f (pid 100 tid 100 fd 3): original 4096, replay 0$" \
				"$T/out" &&
			grep -q "1 succeeded where the original failed" "$T/out" &&
			grep -q "${kind}_complete /d/f (pid 100 tid 100 fd 3): original -EIO, replay 4096$" \
				"$T/out" &&
			grep -q "ops not replayed: 0" "$T/out" || {
			cat "$T/out"
			fail "$what: differing completions not counted and named"
		}
	done
	# every submission refused: each request differs once, at its submit record (the
	# replay's io_submit or io_uring_enter failed); its completion record takes that error
	# and is neither counted again nor left out as one the replay did not submit
	rm -rf "$T/tgt"
	IOREEL_TEST_SUBMIT_FAIL=1 timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" \
		--target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "$kind, refused: status $? (137: hung): $(cat "$T/out")"
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	grep -q "outcomes differing from the original: 3$" "$T/out" &&
		grep -q "3 failed where the original succeeded" "$T/out" &&
		grep -q "${kind}_submit /d/f (pid 100 tid 100 fd 3): original 1, replay -EAGAIN$" \
			"$T/out" &&
		! grep -q "${kind}_complete .*(pid 100" "$T/out" &&
		grep -q "ops not replayed: 0" "$T/out" || {
		cat "$T/out"
		fail "$kind, refused: a refused request not counted once, at its submit"
	}
	n=$("$IOREEL" dump --format jsonl "$T/r.reel" | grep "\"op\":\"${kind}_complete\"" |
		grep -c '"ret":-11')
	[ "$n" = 3 ] || fail "$kind, refused: $n of 3 completion records carry -EAGAIN"
done
echo PASS
