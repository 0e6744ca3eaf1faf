#!/bin/bash
# An fsync waits for what other threads wrote to its file before it, in every timing mode:
# it flushes their writes, and run before them it finds next to nothing dirty and looks
# faster than it was (a database's checkpointer fsyncs the files its backends wrote; as fast
# as possible, its thread, with few ops, runs ahead of theirs). Thread 101 writes 1000 blocks
# of 4 KiB; then threads 102-108 but 106 flush the file with fsync, fdatasync,
# sync_file_range, an io_uring fsync, syncfs and sync (a syncfs of no fd). Each must start
# after the last write ended. Thread 106 writes after the
# flushes, which do not wait for it. Without the order, as fast as possible, the fsync,
# fdatasync, sync_file_range, syncfs and sync ran before the writes.
source "$(dirname "$0")/lib.sh"

N=1000
{
	echo "100 101 0 10 openat path=/d/f flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
	# each flushing thread alive from the start: its own worker, not one handed on in turn
	for tid in 102 103 104 105 107 108; do
		echo "100 $tid $((tid - 80)) $((tid - 79)) fstat fd=3 path=/d/f ret=0"
	done
	for i in $(seq 0 $((N - 1))); do
		t=$((100 + 10 * i))
		echo "100 101 $t $((t + 5)) pwrite64 fd=3 path=/d/f off=$((i * 4096)) len=4096 ret=4096"
	done
	t=$((200 + 10 * N))
	echo "100 102 $t $((t + 50)) fsync fd=3 path=/d/f ret=0"
	echo "100 103 $((t + 60)) $((t + 110)) fdatasync fd=3 path=/d/f ret=0"
	echo "100 104 $((t + 120)) $((t + 170)) sync_file_range fd=3 path=/d/f off=0 len=0 flags=7 ret=0"
	echo "100 105 $((t + 180)) $((t + 180)) uring_submit fd=3 path=/d/f ctx=9 aux=1 subop=3 ret=1"
	echo "100 105 $((t + 180)) $((t + 230)) uring_complete fd=3 path=/d/f ctx=9 aux=1 subop=3 ret=0"
	echo "100 107 $((t + 190)) $((t + 200)) syncfs fd=3 path=/d/f ret=0"
	echo "100 108 $((t + 210)) $((t + 220)) syncfs fd=-1 ret=0"
	echo "100 106 $((t + 240)) $((t + 245)) pwrite64 fd=3 path=/d/f off=0 len=4096 ret=4096"
	echo "100 101 $((t + 300)) $((t + 301)) close fd=3 ret=0"
} | mk t

for tm in afap original; do
	replay_as_traced $tm "an outcome differs"
	"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
last = max(o["end_ns"] for o in ops if o["tid"] == 101 and o["op"] == "pwrite64")
flush = [o for o in ops if 102 <= o["tid"] <= 108 and o["tid"] != 106 and
         o["op"] not in ("fstat", "uring_complete")]
early = [o["op"] for o in flush if o["start_ns"] < last]
print("'$tm': %d flushes, %d before the last write ended: %s" % (len(flush), len(early), early))
sys.exit(1 if early or len(flush) != 6 else 0)
' || fail "timing $tm: a flush ran before the writes it flushed"
done

# A write that began after another thread's fsync of the file ended waits for it (a commit
# waits for its log's flush: the wait is in no syscall), in every timing mode; one that began
# while the fsync ran does not. Thread 201 appends to a log and fdatasyncs it (2 ms); thread
# 202's write began 1 ms into that sync, thread 203's after it ended. As fast as possible,
# 203's ran before the sync (with nothing before it in its thread) without the order.
{
	echo "200 201 0 10 openat path=/d/wal flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
	for tid in 202 203; do
		echo "200 $tid $((tid - 180)) $((tid - 179)) fstat fd=3 path=/d/wal ret=0"
	done
	for i in $(seq 0 199); do
		t=$((100 + 10 * i))
		echo "200 201 $t $((t + 5)) pwrite64 fd=3 path=/d/wal off=$((i * 8192)) len=8192 ret=8192"
	done
	echo "200 201 3000 5000 fdatasync fd=3 path=/d/wal ret=0"
	echo "200 202 4000 4010 pwrite64 fd=3 path=/d/wal off=1638400 len=8192 ret=8192"
	echo "200 203 5100 5110 pwrite64 fd=3 path=/d/wal off=1646592 len=8192 ret=8192"
	echo "200 201 6000 6001 close fd=3 ret=0"
} | mk t
for tm in afap think original; do
	replay_as_traced $tm "an outcome differs"
	"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
sync = [o for o in ops if o["op"] == "fdatasync"][0]
w = {o["tid"]: o for o in ops if o["op"] == "pwrite64" and o["tid"] in (202, 203)}
print("'$tm': the write begun after the sync starts %d us after the sync ended" %
      ((w[203]["start_ns"] - sync["end_ns"]) // 1000))
sys.exit(1 if w[203]["start_ns"] < sync["end_ns"] else 0)
' || fail "timing $tm: a write begun after the fdatasync ended ran before it ended"
done
echo PASS
