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
# whatever --engine says); then each repetition runs, back to back (in turn first):
#   fio     the job, on a fresh file in the same directory (MiB/s: fio's terse output)
#   ioreel  ioreel replay --timing afap of the recording into a fresh target on tmpfs
#           (MiB/s: bytes written over the result trace's first start .. last end)
# "vs fio" is the median of the repetitions' own ratios (a pair ran back to back: the
# machine's drift cancels out of it), with their range; "best" the fastest repetition of
# each, and their ratio. On this project's VM any run, of either side, may come out ~5x
# slower than the one before (fresh tmpfs pages that the host has to fault in again, it
# seems: freeing and refilling 512 MiB, and pausing between runs, changed nothing), so the
# medians swing from run to run and the bests are the steadier comparison. A replay adds
# work fio does not do per request (a result record, its timing, the trace's order).
# Target: ioreel's best >= 0.80 of fio's best. Missed targets print "TARGET MISSED:" and do
# not fail; a broken run exits 1; 77: no fio, or no BPF to record with.
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

# run_fio: fio's MiB/s for the job, on a fresh file
run_fio() {
	rm -f "$S/app/g"
	fio --output-format=terse --terse-version=3 --output="$S/fio.out" "$S/run.fio" \
		>"$S/fio.log" 2>&1 || rb_fail "fio: $(tail -3 "$S/fio.log")"
	rm -f "$S/app/g"
	# terse v3: field 47 written KiB, field 50 write runtime (ms)
	awk -F';' '{ printf "%.1f", $50 ? $47 / 1024 * 1000 / $50 : 0 }' "$S/fio.out"
}

# run_ioreel: the replay's MiB/s: bytes its io_uring requests wrote, over its result's first
# start .. last end; into a fresh target, removed after (each side leaves tmpfs as it found it)
run_ioreel() {
	rm -rf "$S/tgt"
	"$IOREEL" replay "$S/t.reel" --target "$S/tgt" --timing afap -o "$S/r.reel" \
		>"$S/replay.log" 2>&1 || rb_fail "replay: $(tail -3 "$S/replay.log")"
	rm -rf "$S/tgt"
	grep -q "outcomes differing from the original: 0" "$S/replay.log" ||
		rb_fail "replay outcomes differ: $(grep -A3 'outcomes differing' "$S/replay.log")"
	"$IOREEL" dump --format jsonl "$S/r.reel" | python3 -c '
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
print("%.1f" % (nbytes / 1048576 / ((last - first) / 1e9)))'
}

FIO=() IO=() R=()
for rep in $(seq 0 "$REPS"); do # rep 0: a warm-up, not counted
	# which goes first alternates: whatever the one before leaves behind (memory the kernel
	# is still reclaiming) slows both sides alike over the repetitions
	if [ $((rep % 2)) = 1 ]; then
		f=$(run_fio) && i=$(run_ioreel) || exit 1
	else
		i=$(run_ioreel) && f=$(run_fio) || exit 1
	fi
	[ "$rep" = 0 ] && continue
	FIO+=("$f") IO+=("$i") R+=("$(rb_ratio_exact "$i" "$f")")
	rb_say "rep $rep: fio $f MiB/s, ioreel afap $i MiB/s"
done
ratio=$(rb_median "${R[@]}")
best_f=$(printf '%s\n' "${FIO[@]}" | sort -g | tail -1)
best_i=$(printf '%s\n' "${IO[@]}" | sort -g | tail -1)
best_ratio=$(rb_ratio_exact "$best_i" "$best_f")
rb_say "$(printf '%-8s %10s %8s %-11s %10s %8s' "" "MiB/s" "vs fio" "reps" "best" "vs fio")"
rb_say "$(printf '%-8s %10s %8s %-11s %10s %8s' fio "$(rb_median "${FIO[@]}")" 1.00 - "$best_f" 1.00)"
rb_say "$(printf '%-8s %10s %8.2f %-11s %10s %8.2f' ioreel "$(rb_median "${IO[@]}")" "$ratio" \
	"$(rb_spread "${R[@]}")" "$best_i" "$best_ratio")"
ok=0
rb_le 0.80 "$best_ratio" && ok=1
rb_check $ok "ioreel afap's best >= 0.80 of fio's best MiB/s, io_uring 1 MiB writes" \
	"$(printf %.2f "$best_ratio"; printf ', median of the pairs %.2f' "$ratio")"
