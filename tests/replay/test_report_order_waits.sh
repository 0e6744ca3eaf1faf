#!/bin/bash
# The ops that waited for ops of other threads the replay keeps them after are counted
# (result meta replay.order_waits, _ns, _max_ns), and each op's wait is in its result
# (wait_ns), which the report counts apart from the wake-up lateness: those waits are the
# storage's where the op waited for was slow on the target (Go moves goroutines between
# threads: an etcd close counted 351 ms late had waited for a 75 ms ftruncate). Here thread
# 101 writes 64 MiB at 1 ms, recorded as 10 us (tens of ms replayed), and thread 102 reads
# the end of it at 2 ms: the read waits for the write (data order), its thread otherwise
# free, and its lateness is nearly all that wait.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 101 0 10 openat path=/d/f flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3
100 101 1000 1010 pwrite64 fd=3 path=/d/f off=0 len=67108864 ret=67108864
100 102 2000 2010 pread64 fd=3 path=/d/f off=67104768 len=4096 ret=4096
100 101 3000 3010 close fd=3 ret=0
SPEC
replay_as_traced original "the read of the write's bytes"
meta() { "$IOREEL" info "$T/r.reel" | awk -v k="$1" '$1 == k { print $2 }'; }
n=$(meta replay.order_waits)
# the read, and the close of thread 101 after the read's use of the fd, when the read ran late
[ "${n:-0}" -ge 1 ] || fail "replay.order_waits is '$n', not 1 or more"
[ "$(meta replay.order_wait_max_ns)" -gt 0 ] || fail "replay.order_wait_max_ns is 0"
# the result says, per op, how long each waited (wait_ns, format 1.2): the read most of its
# lateness, and the report counts it apart from the wake-up lateness
read=$("$IOREEL" dump "$T/r.reel" --format jsonl | grep '"op":"pread64"')
python3 - "$read" <<'PY' || fail "the read's wait_ns: $read"
import json, sys
o = json.loads(sys.argv[1])
late = o["start_ns"] - o["sched_ns"]
print("read late %d ns, waited %d ns" % (late, o["wait_ns"]))
sys.exit(0 if o["wait_ns"] > 1000000 and o["wait_ns"] >= 0.5 * late else 1)
PY
grep -q "and waiting for ops of other threads they are kept after .*: [1-9][0-9]* ops" "$T/out" ||
	fail "no order waits in the runs' summary: $(grep -A6 '^runs' "$T/out")"
echo PASS
