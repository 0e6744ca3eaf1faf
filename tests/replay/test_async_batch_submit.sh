#!/bin/bash
# An application's io_uring_enter of n SQEs, or io_submit of n iocbs, is n records in the trace
# (one per request) alike in thread, context and time (the syscall's entry): the replay
# submits them with one syscall too. It used to make one per record, so that a queue the
# application refilled 8 at a time was refilled one at a time, with a dip between (fio at
# iodepth 16, iodepth_batch_submit 8: 14.7 requests in flight recorded, 11.5 replayed).
# Here 24 batches of 8 reads, each submitted while the one before is still in flight (as
# fio's): strace counts the replayer's submitting syscalls, one per batch with its 8
# requests, in every timing mode, and with a submission refused now and then (it goes again
# whole); the result has a record per request, those of a batch with the one syscall's start
# and end. A request the kernel refuses in the middle of an io_submit (a read of a
# directory: -EINVAL) fails alone: the ones before it went, the ones after it go next.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }

B=24 N=8

# mkbatches KIND SUBOP: B batches of N 4 KiB reads of /d/a; batch b at 1000 + 200 b us, the
# completions of batch b - 1 after it (16 in flight at most)
mkbatches() {
	local kind=$1 subop=$2 b i t aux
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	for b in $(seq 0 $B); do
		t=$((1000 + 200 * b))
		for i in $(seq 1 $N); do
			aux=$((b * N + i))
			[ $b -lt $B ] &&
				echo "100 100 $t $t ${kind}_submit fd=3 ctx=0x77 aux=$aux subop=$subop off=$(((aux % 64) * 4096)) len=4096 ret=$N"
		done
		[ $b -gt 0 ] || continue
		for i in $(seq 1 $N); do
			aux=$(((b - 1) * N + i))
			echo "100 100 $((t - 200)) $((t + 100)) ${kind}_complete fd=3 ctx=0x77 aux=$aux subop=$subop off=$(((aux % 64) * 4096)) len=4096 ret=4096"
		done
	done
	echo "100 100 90000 90010 close fd=3 ret=0"
}

# submits TRACE SYSCALL WHAT [ENV...]: replays TRACE under strace, checks the outcomes and the
# result, and prints the number of requests each submitting syscall took, one a line
submits() {
	local tr=$1 sc=$2 what=$3
	shift 3
	rm -rf "$T/tgt"
	env "$@" timeout -s KILL 60 strace -f -qq -e trace="$sc" -o "$T/st" "$IOREEL" replay \
		"$tr" --target "$T/tgt" -o "$T/r.reel" "${REPLAY_ARGS[@]}" >"$T/out" 2>&1 ||
		fail "$what: status $? (137: hung): $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" ||
		fail "$what: outcomes differ: $(cat "$T/out")"
	check_same_ops "$tr" "$T/r.reel" >/dev/null
	# (with -f a call another thread interrupts is "<unfinished ...>", then "resumed": its
	# arguments are on the first line); io_uring_enter's second argument is to_submit (0: a
	# wait for completions), io_submit's is nr
	sed -n "/resumed>/d; s/.*$sc([^,]*, \([0-9]*\),.*/\1/p" "$T/st" | grep -v '^0$' || true
}

# every submit record of the result in a group of N of one syscall (start and end alike)
check_grouped() {
	"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
from collections import Counter
n = int(sys.argv[1])
subs = [json.loads(l) for l in sys.stdin]
subs = [o for o in subs if o["op"].endswith("_submit")]
groups = Counter((o["start_ns"], o["end_ns"]) for o in subs)
bad = {k: v for k, v in groups.items() if v != n}
assert not bad and len(subs) == int(sys.argv[2]), (len(subs), list(bad.items())[:4])
' $N $((B * N)) || fail "$1: the result's submit records are not in groups of $N"
}

for k in uring:22:io_uring_enter aio:0:io_submit; do
	IFS=: read -r kind subop sc <<<"$k"
	mkbatches $kind $subop | mk $kind
	# in every timing mode; and with a dispatcher slower than its worker (300 us an op, as
	# on a loaded machine, where CI saw a batch go as 1 + 7): the worker at a batch's first
	# record waits for the rest, which the dispatcher said come next
	for run in original think afap original:300 afap:300; do
		IFS=: read -r timing delay <<<"$run"
		REPLAY_ARGS=(--timing $timing)
		what="$kind, timing $timing${delay:+, dispatcher $delay us an op}"
		got=$(submits "$T/$kind.reel" $sc "$what" IOREEL_TEST_DISPATCH_DELAY_US=${delay:-0}) ||
			exit 1
		[ "$(echo "$got" | grep -c .)" = $B ] && [ -z "$(echo "$got" | grep -v "^$N$")" ] || {
			echo "$got" | sort -n | uniq -c
			fail "$what: want $B ${sc}s of $N requests (one per batch), got the counts above"
		}
		check_grouped "$what"
	done
	# every 3rd submission refused (-EAGAIN, none taken, no syscall made): each batch goes
	# again whole after reaping for room, in one syscall still
	REPLAY_ARGS=(--timing afap)
	what="$kind, every 3rd submission refused"
	got=$(submits "$T/$kind.reel" $sc "$what" IOREEL_TEST_SUBMIT_FAIL=3) || exit 1
	[ "$(echo "$got" | grep -c "^$N$")" = $B ] || {
		echo "$got" | sort -n | uniq -c
		fail "$what: want $B ${sc}s of $N requests"
	}
	check_grouped "$what"
	echo "$kind: $B batches of $N, one $sc each"
done

# io_submit of 3 whose second (a read of a directory: no read_iter) the kernel refuses: it
# takes the first (returns 1), refuses the second on its own (-EINVAL), then takes the third
{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	echo "100 100 20 30 openat path=/d/dir flags=O_RDONLY|O_DIRECTORY kind=dir ret=4"
	echo "100 100 100 100 aio_submit fd=3 ctx=0x77 aux=1 subop=0 off=0 len=4096 ret=3"
	echo "100 100 100 100 aio_submit fd=4 kind=dir ctx=0x77 aux=2 subop=0 off=0 len=4096 ret=3"
	echo "100 100 100 100 aio_submit fd=3 ctx=0x77 aux=3 subop=0 off=4096 len=4096 ret=3"
	for i in 1 2 3; do
		fd=3 kind=reg
		[ $i = 2 ] && fd=4 kind=dir
		echo "100 100 100 200 aio_complete fd=$fd kind=$kind ctx=0x77 aux=$i subop=0 off=$(((i / 3) * 4096)) len=4096 ret=4096"
	done
	echo "100 100 300 310 close fd=4 ret=0"
	echo "100 100 300 310 close fd=3 ret=0"
} | mk part
rm -rf "$T/tgt"
timeout -s KILL 60 strace -f -qq -e trace=io_submit -o "$T/st" "$IOREEL" replay "$T/part.reel" \
	--target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 || fail "partial: status $?: $(cat "$T/out")"
check_same_ops "$T/part.reel" "$T/r.reel" >/dev/null
calls=$(sed -n "/resumed>/d; s/.*io_submit([^,]*, \([0-9]*\),.* = \(.*\)/\1:\2/p" "$T/st" | tr '\n' ' ')
[ "$calls" = "3:1 2:-1 EINVAL (Invalid argument) 1:1 " ] ||
	fail "partial: want io_submit of 3 taking 1, of 2 refused EINVAL, of 1 taking 1; got: $calls"
"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
sub = {o["aux"]: o["ret"] for o in ops if o["op"] == "aio_submit"}
com = {o["aux"]: o["ret"] for o in ops if o["op"] == "aio_complete"}
assert sub == {1: 3, 2: -22, 3: 3}, sub
assert com == {1: 4096, 2: -22, 3: 4096}, com
' || fail "partial: each request's own outcome"
grep -q "aio_submit .*(pid 100 tid 100 fd 4): original 3, replay -EINVAL" "$T/out" ||
	fail "partial: the refused request not counted and named: $(cat "$T/out")"
echo PASS
