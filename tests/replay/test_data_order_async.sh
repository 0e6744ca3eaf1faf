#!/bin/bash
# A read of bytes that another thread's async write (libaio, io_uring) added to the file
# waits for that write's request to have completed, and a cut for it as for any write:
# otherwise, as fast as possible, the reader overtakes the writer and its reads come out
# short, and the cut runs before the writes make the file long again. Thread 101 submits
# 500 writes of 4 KiB that make the file longer and reaps each; process 200 reads each block
# after its write, once after the reaping ("reaped") and once between the submit and the
# reaping ("in flight": the request had completed, the application had not reaped it yet);
# process 300 then cuts the file to 4 KiB (once 200 is done), which it must end as.
source "$(dirname "$0")/lib.sh"

N=500
for kind in aio uring; do
	case $kind in
	aio) ctx=0x77 sub=1 ;;     # IOCB_CMD_PWRITE
	uring) ctx=9 sub=23 ;;     # IORING_OP_WRITE
	esac
	for when in reaped inflight; do
		{
			echo "100 101 0 1 openat path=/d/f flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
			echo "200 201 2 3 openat path=/d/f flags=O_RDONLY ret=3"
			echo "300 301 2 3 stat path=/d/f ret=0"
			for i in $(seq 0 $((N - 1))); do
				t=$((10 + 10 * i)) aux=$((i % 8 + 1)) off=$((i * 4096))
				req="fd=3 ctx=$ctx aux=$aux subop=$sub off=$off len=4096"
				echo "100 101 $t $t ${kind}_submit path=/d/f $req ret=1"
				read="200 201 $((t + 2)) $((t + 2)) pread64 fd=3 path=/d/f off=$off len=4096 ret=4096"
				[ $when = inflight ] && echo "$read"
				# a completion's start is its submission, its end the reaping
				echo "100 101 $t $((t + 3)) ${kind}_complete $req ret=4096"
				[ $when = reaped ] && echo "${read/$((t + 2)) $((t + 2))/$((t + 4)) $((t + 4))}"
			done
			t=$((20 + 10 * N))
			# 300 cuts once 200 has read it all
			echo "200 201 $t $t mkdir path=/d/read mode=0755 ret=0"
			echo "300 301 $((t + 1)) $((t + 1)) stat path=/d/read ret=0"
			echo "300 301 $((t + 2)) $((t + 3)) truncate path=/d/f len=4096 ret=0"
			echo "100 101 $((t + 4)) $((t + 4)) close fd=3 ret=0"
			echo "200 201 $((t + 4)) $((t + 4)) close fd=3 ret=0"
		} | mk t
		for mode in afap think; do
			what="$kind, read $when, timing $mode"
			replay_as_traced $mode "$kind, read $when: an outcome differs (a read overtook the write it needs)"
			grep -q "ops not replayed: 0" "$T/out" || fail "$what: ops not replayed"
			check_size "$T/tgt/d/f" 4096 "$what (a write ran after the cut)"
		done
	done
done
echo PASS
