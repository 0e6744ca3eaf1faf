#!/bin/bash
# async_write.sh - MiB/s of "ioreel replay --timing afap" of fio's own io_uring writes,
# against fio running the same job, in the same run.
#
#   bash tests/bench_replay/async_write.sh          # short form (CI, label bench): 512 MiB, 5 reps
#   bash tests/bench_replay/async_write.sh --full   # full form: 2 GiB, 9 reps
#
# The job: one fio thread, ioengine=io_uring, iodepth=8, sequential 1 MiB buffered writes to
# one file on tmpfs. "ioreel record" records it once (the trace's own io_uring submissions
# and completions, which a replay issues through one io_uring of its own per traced ring,
# whatever --engine says); then each repetition runs, back to back:
#   fio     the job, on a fresh file in the same directory (MiB/s: fio's terse output)
#   ioreel  ioreel replay --timing afap of the recording into a fresh target on tmpfs
#           (MiB/s: bytes written over the result trace's first start .. last end)
# "vs fio" is the median of the repetitions' own ratios (a pair ran back to back: the
# machine's drift cancels out of it), with their range. A replay adds work fio does not do per
# request (a result record, its timing, the trace's order), so it will be below 1.
# Target: ioreel >= 0.80 of fio. Missed targets print "TARGET MISSED:" and do not fail; a
# broken run exits 1; 77: no fio, or no BPF to record with.
set -u
source "$(dirname "$0")/rbench_lib.sh"
rb_init async_write "$@"

if [ "$RB_FULL" = 1 ]; then
	MB=2048 REPS=9
else
	MB=512 REPS=5
fi
command -v fio >/dev/null || rb_skip "fio is not installed"
S=$RB_SCRATCH

# job FILE: fio's job file writing FILE
job() {
	cat <<EOF
[w]
ioengine=io_uring
iodepth=8
rw=write
bs=1M
size=${MB}M
filename=$1
EOF
}

mkdir -p "$S/app"
job "$S/app/f" >"$S/rec.fio"
# (status 3: events were lost, the trace says how many; the count below judges it)
rc=0
"$IOREEL" record -q -o "$S/t.reel" -- fio --output=/dev/null "$S/rec.fio" >"$S/rec.log" 2>&1 || rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
	grep -qi "bpf\|tracefs\|permission" "$S/rec.log" && rb_skip "cannot record: $(tail -1 "$S/rec.log")"
	rb_fail "recording fio: $(tail -3 "$S/rec.log")"
fi
n=$("$IOREEL" dump --format jsonl "$S/t.reel" | grep -c '"op":"uring_submit"')
[ "$n" -ge "$MB" ] || rb_fail "the recording has $n io_uring submissions, want >= $MB"
rb_say "fio job: io_uring, iodepth=8, 1 MiB sequential writes, ${MB} MiB to tmpfs; $REPS reps"

job "$S/app/g" >"$S/run.fio"
FIO=() IO=() R=()
for rep in $(seq 0 "$REPS"); do # rep 0: a warm-up, not counted
	rm -f "$S/app/g"
	fio --output-format=terse --terse-version=3 --output="$S/fio.out" "$S/run.fio" \
		>"$S/fio.log" 2>&1 || rb_fail "fio: $(tail -3 "$S/fio.log")"
	# terse v3: field 47 written KiB, field 50 write runtime (ms)
	f=$(awk -F';' '{ printf "%.1f", $50 ? $47 / 1024 * 1000 / $50 : 0 }' "$S/fio.out")
	rm -rf "$S/tgt"
	"$IOREEL" replay "$S/t.reel" --target "$S/tgt" --timing afap -o "$S/r.reel" \
		>"$S/replay.log" 2>&1 || rb_fail "replay: $(tail -3 "$S/replay.log")"
	grep -q "outcomes differing from the original: 0" "$S/replay.log" ||
		rb_fail "replay outcomes differ: $(grep -A3 'outcomes differing' "$S/replay.log")"
	i=$("$IOREEL" dump --format jsonl "$S/r.reel" | python3 -c '
import json, sys
first, last, nbytes = None, 0, 0
for l in sys.stdin:
    o = json.loads(l)
    if o["op"] not in ("uring_submit", "uring_complete"):
        continue
    first = o["start_ns"] if first is None else min(first, o["start_ns"])
    last = max(last, o["end_ns"])
    if o["op"] == "uring_complete" and o["ret"] > 0:
        nbytes += o["ret"]
print("%.1f" % (nbytes / 1048576 / ((last - first) / 1e9)))')
	[ "$rep" = 0 ] && continue
	FIO+=("$f") IO+=("$i") R+=("$(rb_ratio_exact "$i" "$f")")
	rb_say "rep $rep: fio $f MiB/s, ioreel afap $i MiB/s"
done
ratio=$(rb_median "${R[@]}")
rb_say "$(printf '%-8s %10s %8s %s' "" "MiB/s" "vs fio" "reps")"
rb_say "$(printf '%-8s %10s %8s %s' fio "$(rb_median "${FIO[@]}")" 1.00 -)"
rb_say "$(printf '%-8s %10s %8.2f %s' ioreel "$(rb_median "${IO[@]}")" "$ratio" "$(rb_spread "${R[@]}")")"
ok=0
rb_le 0.80 "$ratio" && ok=1
rb_check $ok "ioreel afap >= 0.80 of fio's MiB/s, io_uring 1 MiB writes" "$(printf %.2f "$ratio")"
