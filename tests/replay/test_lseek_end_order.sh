#!/bin/bash
# lseek(SEEK_END) is a length check (PostgreSQL's "how many blocks"): its result is compared
# with the original's, and it waits for the writes of other threads before it that made the
# file that long. Thread 100 creates /d/f and, after 3000 other ops, writes its first 8 KiB;
# thread 101's check after that saw 8192: replayed as fast as possible it must wait for the
# write (without the order it ran at once and saw 0). A check whose length the replay cannot
# give (a hand-made 9999 for a file just created) is counted and named on its own line,
# apart from the differing outcomes.
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 10 openat path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=3 aux=1"
	for i in $(seq 3000); do
		echo "100 100 $((10 + i)) $((10 + i)) fstat fd=3 path=/d/f ret=0"
	done
	echo "100 100 4000 4010 pwrite64 fd=3 path=/d/f off=0 len=8192 ret=8192"
	echo "100 101 5000 5001 lseek fd=3 path=/d/f off=0 mode=SEEK_END ret=8192"
	echo "100 100 6000 6001 close fd=3 path=/d/f ret=0"
} | mk t
for timing in afap think original; do
	replay_as_traced $timing "a length check ran before the write that made the file that long"
	! grep -q "length checks that saw another length" "$T/out" || {
		cat "$T/out"
		fail "timing $timing: the check did not wait for the other thread's write"
	}
done

{
	echo "200 200 0 10 openat path=/d/g flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3 aux=1"
	echo "200 200 20 21 lseek fd=3 path=/d/g off=0 mode=SEEK_END ret=9999"
	echo "200 200 30 31 close fd=3 path=/d/g ret=0"
} | mk t
rm -rf "$T/tgt"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 || fail "$(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" &&
	grep -q "length checks that saw another length: 1 " "$T/out" &&
	grep -q "lseek /d/g (pid 200 tid 200 fd 3): original 9999, replay 0" "$T/out" || {
	cat "$T/out"
	fail "a length check that saw another length is not counted and named"
}
echo "ok: lseek_end_order"
