#!/bin/bash
# A read that found the end of its file in the original (it came out short of its ask, or
# empty) is a length check too: when the replay finds the file longer there, because a write
# of another thread that came after it in the trace ran before it (a write after a read is
# not ordered after it), the read comes out longer than the original's. That was counted
# nowhere: Berkeley DB's threads (4 threads, 500 transactions each) read pages past the end of
# their hash database (0 bytes) that another thread was about to write; as fast as possible
# ~200 of 15,587 reads read 4096 bytes or 28 where the original's read 0, with "outcomes
# differing from the original: 0" and nothing else said. They are counted and named on the
# length checks' line.
source "$(dirname "$0")/lib.sh"

{
	echo "1 1 0 1 openat path=/r/db flags=O_RDWR|O_CREAT mode=0644 ret=3"
	echo "1 2 2 3 openat path=/r/log flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=4"
	t=10
	# the second thread is busy (syncs take a while) as the first writes the page
	for i in $(seq 0 19); do
		echo "1 2 $t $((t + 1)) pwrite64 fd=4 path=/r/log off=$((i * 4096)) len=4096 ret=4096"
		echo "1 2 $((t + 2)) $((t + 3)) fsync fd=4 path=/r/log ret=0"
		t=$((t + 4))
	done
	echo "1 2 $t $((t + 1)) pread64 fd=3 path=/r/db off=0 len=4096 ret=0"
	echo "1 1 $((t + 10)) $((t + 11)) pwrite64 fd=3 path=/r/db off=0 len=4096 ret=4096"
	echo "1 2 $((t + 40)) $((t + 41)) fsync fd=4 path=/r/log ret=0"
} | mk t
replay_as_traced afap "an outcome differs"
grep -q "length checks that saw another length: 1 " "$T/out" &&
	grep -q "pread64 /r/db (pid 1 tid 2 fd 3): original 0, replay 4096" "$T/out" || {
	cat "$T/out"
	fail "a read that found its file longer than the original's did is not counted and named"
}
echo PASS
