#!/bin/bash
# A thread submits to a shared io_uring and ends while its requests wait, queued, for the
# kernel's io-wq workers; another thread takes their completions later (a submitting thread
# and a reaping one, as in fio or an app). The kernel cancels what a thread left queued there
# when it exits, so its replay worker stays until every worker has replayed its ops
# (worker__linger): exiting at once, 3 of 6000 requests came back -ECANCELED in a CI run of
# replay_async_uring_shared_ring. Here thread 101 submits 200 O_DIRECT writes of 4 KiB and
# ends; thread 100 takes them 200 ms on. IOREEL_TEST_URING_ASYNC sends each to io-wq (as the
# kernel does one it cannot do within its submission), whose 8 workers write them one by one
# to the disk, so most wait queued a while. Without the wait, 1 replay in 3 lost some of them
# (17 and 44 of 200 seen); 10 replays must lose none.
source "$(dirname "$0")/lib.sh"

K=4096 N=200
{
	echo "100 100 0 1 openat path=/d/a flags=O_RDWR|O_DIRECT ret=3"
	echo "100 100 2 3 pread64 fd=3 path=/d/a off=$(((N - 1) * K)) len=$K ret=$K"
	for i in $(seq 0 $((N - 1))); do
		t=$((100 + 5 * i))
		echo "100 101 $t $((t + 1)) uring_submit fd=3 ctx=0x77 aux=$((i + 1)) subop=23 off=$((i * K)) len=$K ret=1"
	done
	for i in $(seq 0 $((N - 1))); do
		t=$((200000 + 10 * i))
		echo "100 100 $t $((t + 1)) uring_complete fd=3 ctx=0x77 aux=$((i + 1)) subop=23 off=$((i * K)) len=$K ret=$K"
	done
	echo "100 100 300000 300001 close fd=3 ret=0"
} | mk t
export IOREEL_TEST_URING_ASYNC=1
for i in $(seq 1 10); do
	replay_as_traced original "replay $i: requests cancelled as the thread that submitted them ended"
done
echo "10 replays: 200 writes each, queued by a thread that ended, all done"
replay_as_traced afap "as fast as possible: requests cancelled as their thread ended"
echo PASS
