#!/bin/bash
# A submission the kernel refuses (io_uring_enter or io_submit: -EAGAIN, -EBUSY, the
# request's own error) leaves nothing behind: refused for want of room, it is tried again
# after reaping for room; refused on, the op fails with that error, counted and named, and
# is never issued later from a slot or buffer that has since been reused or freed
# (the refused SQE used to stay in the ring and go out with the next submission). A context
# whose trace has more requests in flight than its depth reaps to make room instead of
# spinning on -EAGAIN forever (700 libaio requests in flight used to hang the replay).
# IOREEL_TEST_SUBMIT_FAIL=N refuses every Nth submission of each async engine.
source "$(dirname "$0")/lib.sh"

# check_blocks RESULT FILE WHAT: every write of RESULT at off=i*4096 that succeeded left its
# block written (0x5a), every one that failed left it a hole: a refused write that the
# kernel still issued later shows as a written block
check_blocks() {
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
data = open(sys.argv[1], "rb").read()
bad, refused = [], 0
for o in ops:
    if o["op"] not in ("pwrite64", "uring_submit", "aio_submit") or o.get("len") != 4096:
        continue
    blk = data[o["offset"]:o["offset"] + 4096]
    written = len(blk) == 4096 and blk.count(0x5a) == 4096
    ok = o["ret"] >= 0
    refused += not ok
    if ok != written:
        bad.append((o["op"], o["offset"], o["ret"], written))
    if not ok and o["ret"] != -11:
        bad.append(("errno", o["offset"], o["ret"]))
print(refused)
if bad:
    print(sys.argv[2], "ops whose result and file disagree:", bad[:5], file=sys.stderr)
    sys.exit(1)
' "$2" "$3" || fail "$3"
}

# --engine io_uring / libaio: the trace's pwrites as the worker's requests. Every 4th
# submission refused: the worker reaps its requests in flight to make room and tries again
# (or, none in flight, tries again 1 ms later), as the trace's own requests do, so every
# write goes out (a refusal used to fail the op at once: 7 of 30 failed). Every submission
# refused: after a few tries each op fails with -EAGAIN, counted and named, never issued.
{
	echo "100 100 0 10 openat path=/d/a flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
	for i in $(seq 0 29); do
		echo "100 100 $((100 + i * 20)) $((110 + i * 20)) pwrite64 fd=3 off=$((i * 8192)) len=4096 ret=4096"
	done
	echo "100 100 2000 2010 close fd=3 ret=0"
} | mk t
for e in io_uring libaio; do
	for timing in afap original; do
		for knob in 4 1; do
			what="engine $e, $timing, every ${knob}th submission refused"
			rm -rf "$T/tgt"
			IOREEL_TEST_SUBMIT_FAIL=$knob timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" \
				--target "$T/tgt" --engine $e --timing $timing -o "$T/r.reel" \
				>"$T/out" 2>&1 || fail "$what: status $? (137: hung): $(cat "$T/out")"
			check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
			n=$(check_blocks "$T/r.reel" "$T/tgt/d/a" "$what") || exit 1
			want=$((knob == 1 ? 30 : 0))
			[ "$n" = $want ] || {
				grep -A4 "outcomes differing" "$T/out"
				fail "$what: $n writes refused, want $want"
			}
			grep -q "outcomes differing from the original: $want$" "$T/out" || {
				cat "$T/out"
				fail "$what: refused submissions not counted"
			}
			[ $knob = 4 ] || {
				grep -q "30 failed where the original succeeded" "$T/out" &&
					grep -q "pwrite64 .*(pid 100 tid 100 fd 3): original 4096, replay -EAGAIN" \
						"$T/out"
			} || {
				cat "$T/out"
				fail "$what: refused submissions not counted and named"
			}
		done
	done
done

# with requests in flight (a burst of 40 reads 1 us apart: as fast as possible, a refusal
# finds 8 of them in flight): every 4th submission refused, each refusal reaps for room and
# every read completes in full (10 used to fail)
{
	echo "100 100 0 10 openat path=/d/r flags=O_RDONLY ret=3"
	for i in $(seq 0 39); do
		echo "100 100 $((100 + i)) $((100 + i)) pread64 fd=3 off=$((i * 65536)) len=65536 ret=65536"
	done
	echo "100 100 2000 2010 close fd=3 ret=0"
} | mk burst
for e in io_uring libaio; do
	for timing in afap original; do
		what="engine $e, $timing, burst of reads, every 4th submission refused"
		rm -rf "$T/tgt"
		IOREEL_TEST_SUBMIT_FAIL=4 timeout -s KILL 60 "$IOREEL" replay "$T/burst.reel" \
			--target "$T/tgt" --engine $e --timing $timing -o "$T/r.reel" >"$T/out" 2>&1 ||
			fail "$what: status $? (137: hung): $(cat "$T/out")"
		check_same_ops "$T/burst.reel" "$T/r.reel" >/dev/null
		grep -q "outcomes differing from the original: 0$" "$T/out" || {
			grep -A4 "outcomes differing" "$T/out"
			fail "$what: reads failed or came out short"
		}
	done
done

# the trace's own io_uring requests, each reaped before the next is submitted, every
# submission refused: with nothing in flight to reap for room, a submit is tried a few times
# and then fails, counted once (its completion record takes the error, not counted again),
# and its buffer, freed, is never written from
{
	echo "100 100 0 10 openat path=/d/b flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
	for i in $(seq 1 12); do
		echo "100 100 $((100 + i * 20)) $((101 + i * 20)) uring_submit fd=3 ctx=9 aux=$i subop=23 off=$((i * 8192)) len=4096 ret=1"
		echo "100 100 $((105 + i * 20)) $((110 + i * 20)) uring_complete ctx=9 aux=$i ret=4096"
	done
	echo "100 100 2000 2010 close fd=3 ret=0"
} | mk u
rm -rf "$T/tgt"
IOREEL_TEST_SUBMIT_FAIL=1 timeout -s KILL 60 "$IOREEL" replay "$T/u.reel" --target "$T/tgt" \
	-o "$T/r.reel" >"$T/out" 2>&1 || fail "uring requests: status $? (137: hung): $(cat "$T/out")"
n=$(check_blocks "$T/r.reel" "$T/tgt/d/b" "uring requests") || exit 1
[ "$n" = 12 ] || fail "uring requests: $n submits refused, want all 12"
grep -q "outcomes differing from the original: 12$" "$T/out" &&
	grep -q "12 failed where the original succeeded" "$T/out" &&
	grep -q "uring_submit .*(pid 100 tid 100 fd 3): original 1, replay -EAGAIN" "$T/out" &&
	grep -q "ops not replayed: 0$" "$T/out" || {
	cat "$T/out"
	fail "uring requests: refused submissions not counted and named"
}

# all submitted before any is reaped: a refusal reaps what has completed and tries again,
# so every request goes out; and 700 libaio requests in flight, more than the replay's
# context holds, make room the same way rather than spin on -EAGAIN
for kind in uring:23:4 aio:1:0; do
	IFS=: read -r k subop knob <<<"$kind"
	{
		echo "100 100 0 10 openat path=/d/c flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=3"
		for i in $(seq 1 700); do
			echo "100 100 $((100 + i)) $((100 + i)) ${k}_submit fd=3 ctx=9 aux=$i subop=$subop off=$((i * 8192)) len=4096 ret=1"
		done
		for i in $(seq 1 700); do
			echo "100 100 $((2000 + i)) $((2000 + i)) ${k}_complete ctx=9 aux=$i ret=4096"
		done
		echo "100 100 90000 90010 close fd=3 ret=0"
	} | mk many
	rm -rf "$T/tgt"
	IOREEL_TEST_SUBMIT_FAIL=$knob timeout -s KILL 60 "$IOREEL" replay "$T/many.reel" \
		--target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "700 $k requests in flight: status $? (137: hung): $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		cat "$T/out"
		fail "700 $k requests in flight: outcomes differ"
	}
	n=$(check_blocks "$T/r.reel" "$T/tgt/d/c" "700 $k requests") || exit 1
	[ "$n" = 0 ] || fail "700 $k requests: $n refused"
done
exit 0
