#!/bin/bash
# A read of bytes another thread wrote waits for that write, in every timing mode (make -j2:
# as reads the .s file cc1, another process, is still writing). Process 100 creates a file
# and appends 2000 blocks of 4 KiB to it; process 200 opens it while it is being written and
# reads each block right after it was written, with every read type. Without the order, the
# reader overtakes the writer as fast as possible and its reads come out short. Process 300
# reads the whole file once it is written, most of it in blocks whose writes the dispatcher
# no longer keeps (it waits for the oldest it keeps). Asserts no differing outcome, and that
# each read started after the write that made the file that long had ended. The same again
# with the reads and writes carrying no path (FORMAT.md lets a writer leave the fd's file out
# of an op on it): the replay goes by the name each fd was opened by, as its file-set scan
# does; without that, no read waited and ~half came out short as fast as possible.
source "$(dirname "$0")/lib.sh"

SHM=$(mktemp -d /dev/shm/ioreel-xdata-test.XXXXXX) || exit 77
trap 'rm -rf "$SHM"; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
N=2000
reads=(read pread64 readv preadv preadv2)
{
	echo "100 100 0 10 openat path=/d/out.s flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3"
	echo "200 200 20 30 openat path=/d/out.s flags=O_RDONLY ret=3"
	for i in $(seq 0 $((N - 1))); do
		t=$((100 + 10 * i))
		echo "100 100 $t $((t + 2)) write fd=3 path=/d/out.s off=$((i * 4096)) len=4096 ret=4096"
		echo "200 200 $((t + 5)) $((t + 6)) ${reads[i % 5]} fd=3 path=/d/out.s off=$((i * 4096)) len=4096 ret=4096"
	done
	echo "300 300 $((100 + 10 * N)) $((101 + 10 * N)) openat path=/d/out.s flags=O_RDONLY ret=3"
	for i in $(seq 0 $((N / 16 - 1))); do
		t=$((102 + 10 * N + i))
		echo "300 300 $t $t pread64 fd=3 path=/d/out.s off=$((i * 65536)) len=65536 ret=65536"
	done
	t=$((200 + 11 * N))
	echo "100 100 $t $t close fd=3 ret=0"
	echo "200 200 $((t + 1)) $((t + 1)) close fd=3 ret=0"
	echo "300 300 $((t + 2)) $((t + 2)) close fd=3 ret=0"
} >"$T/spec"
mk t <"$T/spec"
sed 's| fd=3 path=/d/out.s | fd=3 |' "$T/spec" >"$T/spec.unnamed"
grep -q ' fd=3 path=' "$T/spec.unnamed" && fail "unnamed: an op on fd 3 still carries a path"
mk unnamed <"$T/spec.unnamed"

# every read of processes 200 and 300 starts after the end of the first write that reached its
# end (the original's: every read of the trace got all it asked for)
check_order() {
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
writes = sorted((o["offset"] + o["len"], o["end_ns"]) for o in ops
                if o["pid"] == 100 and o["op"] == "write")
reads = [o for o in ops if o["pid"] != 100 and o["op"] not in ("openat", "close")]
bad = 0
for r in reads:
    end = r["offset"] + r["len"]
    w = next(e for e in writes if e[0] >= end)
    if r["start_ns"] < w[1]:
        bad += 1
print(len(reads), "reads,", bad, "before their write")
sys.exit(1 if bad or len(reads) != '$((N + N / 16))' else 0)
'
}

for trace in t unnamed; do
	for mode in afap original; do
		rm -rf "$SHM/tgt"
		"$IOREEL" replay "$T/$trace.reel" --target "$SHM/tgt" --timing $mode \
			-o "$T/r.reel" >"$T/out" 2>&1 || fail "$trace, replay $mode: $(cat "$T/out")"
		grep -q "outcomes differing from the original: 0" "$T/out" || {
			grep -A4 "outcomes differing" "$T/out"
			fail "$trace, timing $mode: reads came out short"
		}
		check_order "$T/r.reel" || fail "$trace, timing $mode: a read ran before the write it reads"
		check_same_ops "$T/$trace.reel" "$T/r.reel" >/dev/null
	done
done
echo PASS
