#!/bin/bash
# As fast as possible the replay runs in segments: the trace is read ahead into one buffer, a
# segment is released whole to the workers, and its results are written in the pause after
# it (replay_stage.c, stage__run). Across several segments:
# - cross-thread order holds where the two ops fall in different segments (a close after
#   another thread's last read, an open before another thread's read, a rename and a mkdir
#   before another thread's open), and workers of ended threads take on new ones;
# - the result holds exactly the trace's ops, each with its original outcome;
# - the summary, the report and the meta say how many segments and how long the pauses were;
#   the result's timeline leaves the pauses out: its span is shorter than the command's wall
#   time less the pauses, and each thread's ops stay in order; an AIO request in flight
#   across segments completes after its submission, on the same timeline.
# (Ctrl-C in the middle of a segment: test_interrupt.sh.)
source "$(dirname "$0")/lib.sh"

# segments of 123 k ops (IOREEL_TEST_SEGMENT; the default holds ~350 k, 64 MiB of them, all
# threads together): these 270 k span 3
python3 - >"$T/spec" <<'PY'
N = 180000
print("100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3")
# an AIO read in flight from the first segment to the last
print("100 107 2 3 openat path=/d/c flags=O_RDONLY ret=9")
print("100 107 4 4 aio_submit fd=9 ctx=0x77 aux=1 subop=0 off=0 len=4096 ret=1")
t = 20
for i in range(N):
    print(f"100 101 {t} {t + 1} pread64 fd=3 off={(i % 64) * 4096} len=4096 ret=4096")
    if i % 2 == 0:
        print(f"100 102 {t} {t + 1} stat path=/d/a ret=0")
    # short-lived threads, one after the other: their workers are handed on
    if i % 18000 == 0:
        tid = 110 + i // 18000
        print(f"100 {tid} {t} {t + 1} stat path=/d/b ret=0")
    t += 2
# after the last read of 101 (a later segment than the open): thread 100 closes fd 3
print(f"100 100 {t} {t + 1} close fd=3 ret=0")
print(f"100 100 {t + 2} {t + 3} openat path=/d/b flags=O_RDONLY ret=4")
print(f"100 103 {t + 4} {t + 5} pread64 fd=4 off=0 len=4096 ret=4096")
print(f"100 103 {t + 6} {t + 7} close fd=4 ret=0")
print(f"100 104 {t + 8} {t + 9} openat path=/d/tmp flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=6")
print(f"100 104 {t + 10} {t + 11} pwrite64 fd=6 off=0 len=100 ret=100")
print(f"100 104 {t + 12} {t + 13} close fd=6 ret=0")
print(f"100 104 {t + 14} {t + 15} rename path=/d/tmp path2=/d/final ret=0")
print(f"100 105 {t + 16} {t + 17} openat path=/d/final flags=O_RDONLY ret=7")
print(f"100 105 {t + 18} {t + 19} close fd=7 ret=0")
print(f"100 104 {t + 20} {t + 21} mkdir path=/d/newdir mode=0755 ret=0")
print(f"100 106 {t + 22} {t + 23} openat path=/d/newdir/f flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=8")
print(f"100 106 {t + 24} {t + 25} close fd=8 ret=0")
print(f"100 107 4 {t + 26} aio_complete ctx=0x77 aux=1 ret=4096")
PY
mk t <"$T/spec"
IOREEL_TEST_SEGMENT=123000 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r0.reel" >/dev/null 2>&1 ||
	fail "prepare"
rm -rf "$T/tgt/d/final" "$T/tgt/d/newdir"
t0=$(date +%s%N)
IOREEL_TEST_SEGMENT=123000 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
wall=$(($(date +%s%N) - t0))
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "cross-thread order broken across segments"
}
grep -q "ops not replayed: 0" "$T/out" || fail "ops not replayed: $(cat "$T/out")"
check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
grep -Eq "as fast as possible in [0-9]+ segments" "$T/out" || fail "no segments line: $(cat "$T/out")"
"$IOREEL" report "$T/t.reel" "$T/r.reel" >"$T/report" 2>&1 || fail "report: $(cat "$T/report")"
grep -Eq "in [0-9]+ segments read ahead; the .* of pauses" "$T/report" ||
	fail "report does not say the segments: $(cat "$T/report")"
"$IOREEL" info "$T/r.reel" >"$T/info" 2>&1 || fail "info"
"$IOREEL" dump --format jsonl "$T/r.reel" >"$T/r.jsonl" || fail "dump"
python3 - "$T/info" "$T/r.jsonl" "$wall" <<'PY' || fail "segments or timeline wrong"
import json, re, sys
info = open(sys.argv[1]).read()
seg = re.search(r"replay\.segments\D*(\d+)", info)
paused = re.search(r"replay\.paused_ns\D*(\d+)", info)
assert seg and paused, "no replay.segments / replay.paused_ns meta"
seg, paused, wall = int(seg.group(1)), int(paused.group(1)), int(sys.argv[3])
assert seg >= 3, f"{seg} segments, want >= 3"
assert paused > 0, "no pause between segments"
first, last, prev, aio = None, 0, {}, {}
for line in open(sys.argv[2]):
    o = json.loads(line)
    if o["op"].startswith("aio_"):
        aio[o["op"]] = o
    first = o["start_ns"] if first is None else min(first, o["start_ns"])
    last = max(last, o["end_ns"])
    # (a completion's start is its request's submission: its end then)
    at = o["end_ns"] if o["op"].endswith("_complete") else o["start_ns"]
    assert prev.get(o["tid"], 0) <= at, ("thread went back", o)
    prev[o["tid"]] = o["end_ns"]
sub, done = aio.get("aio_submit"), aio.get("aio_complete")
assert sub and done, f"AIO request not replayed: {aio}"
# a completion's start is its request's submission (FORMAT.md)
assert done["start_ns"] == sub["start_ns"] <= done["end_ns"] <= last, (sub, done, last)
span = last - first
assert span + paused < wall, f"span {span} + pauses {paused} >= wall {wall}"
print(f"segments {seg}, pauses {paused / 1e6:.1f} ms, span {span / 1e6:.1f} ms, wall {wall / 1e6:.1f} ms")
PY

echo PASS
