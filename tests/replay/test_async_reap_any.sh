#!/bin/bash
# An application reaps whichever of its async requests completed (io_getevents, io_uring's
# completion queue), so a completion record whose own request has not completed in the
# replay, while another on the same fd, as long and with the same original result has, takes
# that one, and says so (its id and submission), and leaves its own to that one's record. It
# waited for its own: fio (libaio, O_DIRECT, 128 KiB randrw, iodepth=16 on ext4; 16 requests
# in flight) replayed with 8-10 in flight, its reads measured 0.5-0.75x as long. Here, 20
# times, request Q reads 1 MiB still in the page cache (done as it is submitted), then
# request R 1 MiB the trace dropped from the page cache (from the disk), and the trace reaps
# R first: R's record takes Q (on a machine so busy that R was done too before the record
# could take Q, it takes R: at least one of the 20 must take Q). A request another op may
# wait for (on a file the trace cuts after it, here; or a write that makes its file longer)
# keeps its own: none of the 20 takes Q. A replay whose every R completed within its own
# submission (the disk busy with other work, the submission held until its read was done) has
# no record that could take Q; one whose R still in flight after its submission completed
# before its record came (a thread held off the CPU in between) neither: a replay where none
# took Q is tried again, up to 3 times, and fails if in one an R was still in flight after
# its submission.
source "$(dirname "$0")/lib.sh"

MiB=1048576
for cut in 0 1; do
	{
		echo "100 100 0 1 openat path=/d/f flags=O_RDWR ret=3"
		echo "100 100 10 11 pread64 fd=3 path=/d/f off=0 len=$MiB ret=$MiB"
		echo "100 100 20 30 fadvise64 fd=3 path=/d/f off=$((8 * MiB)) len=$((20 * MiB)) mode=4 ret=0"
		req="fd=3 path=/d/f ctx=9 subop=22 len=$MiB"
		for i in $(seq 0 19); do
			t=$((100 + 1000 * i)) q=$((2 * i + 2)) r=$((2 * i + 1)) off=$(((8 + i) * MiB))
			echo "100 100 $t $t uring_submit $req aux=$q off=0 ret=1"
			echo "100 100 $((t + 1)) $((t + 1)) uring_submit $req aux=$r off=$off ret=1"
			echo "100 100 $((t + 1)) $((t + 2)) uring_complete $req aux=$r off=$off ret=$MiB"
			echo "100 100 $t $((t + 3)) uring_complete $req aux=$q off=0 ret=$MiB"
		done
		[ $cut = 0 ] || echo "100 100 30000 30001 ftruncate fd=3 path=/d/f len=0 ret=0"
		echo "100 100 30100 30101 close fd=3 ret=0"
	} | mk t
	for timing in original afap; do
		what="cut $cut, timing $timing"
		late=0
		for try in 1 2 3; do
			replay_as_traced $timing "$what: outcomes differ"
			"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
			rc=0
			python3 - "$T/r.jsonl" $cut <<'PY' || rc=$?
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
sub = {o["aux"]: o for o in ops if o["op"] == "uring_submit"}
com = [o for o in ops if o["op"] == "uring_complete"]
assert len(sub) == 40 and len(com) == 40, (len(sub), len(com))
# each record names the request it took, with that request's submission as its start
assert sorted(o["aux"] for o in com) == sorted(sub), "a request taken twice, or never"
for o in com:
    assert o["start_ns"] == sub[o["aux"]]["start_ns"] and o["offset"] == sub[o["aux"]]["offset"], o
took_q = sum(1 for i in range(20) if com[2 * i]["aux"] == 2 * i + 2)
# R still in flight when its submission returned: its completion stamped after
done = {o["aux"]: o["end_ns"] for o in com}
r_late = sum(1 for i in range(20) if done[2 * i + 1] > sub[2 * i + 1]["end_ns"])
if sys.argv[2] == "1":
    assert took_q == 0, f"{took_q} of 20 records of a request on a file cut later took another"
elif not took_q:
    print(f"no record took Q, {r_late} R still in flight after their submission")
    sys.exit(4 if r_late else 3)
print(f"{took_q} of 20 took Q ({r_late} R still in flight after their submission)")
PY
			[ $rc = 4 ] && late=1
			[ $rc = 3 ] || [ $rc = 4 ] || break
		done
		case $rc in
		0) ;;
		3 | 4) [ $late = 0 ] || fail "$what: no record of the 20 took the request that had completed" ;;
		*) fail "$what" ;;
		esac
	done
done
echo PASS
