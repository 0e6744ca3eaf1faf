#!/bin/bash
# An original-timing replay that falls behind runs its backlog about as fast as afap does.
# fio's io_uring jobs on /dev/shm (4 KiB, iodepth 16, ~230 k requests/s each) replayed onto
# the tmpfs they were recorded on took 3.87 s with --timing original against 1.82 s as fast
# as possible, at 2.2 us of worker CPU per op against 0.76, and the report blamed the storage:
# the dispatcher and the result writer ran at nice 10 (background work, with a schedule), got
# a sliver of the busy CPUs, and the workers, out of items, slept and were woken for each
# item (a futex wake-up and two context switches an op), the dispatcher woken again by each
# op the worker retired until it ran. Here two threads of 4 KiB io_uring reads and writes on
# tmpfs, 16 in flight each, recorded 1 us apart (far past any replayer's pace: all backlog),
# replayed with each timing 5 times, interleaved: the original's worker CPU per op within 1.5x
# of afap's (2.0-2.75x before; 0.8-1.3x now), and its duration within 1.5x of afap's with the
# pauses between its segments, where it reads the trace and writes results, which an original
# timing does alongside (1.7-2.1x before; 0.85-1.35x now, on a loaded VM). Each ratio is taken
# within a pair (the two runs back to back see the same machine) and the median of the five
# pairs is held to it: best against best failed once in CI when a single afap run was
# twice as fast as its other two (0.158 s against 0.48 and 0.24; the original took 0.33-0.37
# each time), which says nothing of the original timing.
# afap runs with its workers left to the scheduler (IOREEL_TEST_NO_PIN), as the original
# timing's are: pinned one per CPU, afap's reached 940-1010 ns/op where unpinned it took
# 1240-2790 and the original 1240-2140, which compares the placement, not the two timings'
# own work.
source "$(dirname "$0")/lib.sh"
shm=$(mktemp -d /dev/shm/ioreel-backlog.XXXXXX) || exit 1
trap 'rm -rf "$shm"; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

python3 - 80000 >"$T/spec" <<'PY'
import sys
n, depth, out = int(sys.argv[1]), 16, []
out.append("100 100 0 1 openat path=/d/r flags=O_RDONLY ret=3")
out.append("100 100 2 3 pread64 fd=3 path=/d/r off=%d len=4096 ret=4096" % (1023 * 4096))
out.append("100 101 0 1 openat path=/d/w flags=O_RDWR|O_CREAT ret=4")
for tid, fd, subop, ctx, path in ((100, 3, 22, 0x77, "/d/r"), (101, 4, 23, 0x78, "/d/w")):
    t, inflight = 10, []

    def complete(t):
        i, off, sub = inflight.pop(0)
        out.append("100 %d %d %d uring_complete fd=%d path=%s ctx=%d aux=%d subop=%d off=%d "
                   "len=4096 ret=4096" % (tid, sub, t, fd, path, ctx, i, subop, off))

    for i in range(1, n + 1):
        if len(inflight) == depth:
            complete(t)
            t += 1
        off = (i * 7919 % 1024) * 4096
        out.append("100 %d %d %d uring_submit fd=%d path=%s ctx=%d aux=%d subop=%d off=%d "
                   "len=4096 ret=1" % (tid, t, t, fd, path, ctx, i, subop, off))
        inflight.append((i, off, t))
        t += 1
    while inflight:
        complete(t)
        t += 1
# in time order: a completion is written at its end
key = lambda l: (int(l.split()[3] if "complete" in l else l.split()[2]), int(l.split()[1]))
print("\n".join(sorted(out, key=key)))
PY
mk t <"$T/spec"

# run TIMING N: replays onto tmpfs; prints the workers' CPU per op (ns), the span and the
# pauses between segments (s)
run() {
	rm -rf "$shm/t"
	IOREEL_TEST_NO_PIN=1 "$IOREEL" replay "$T/t.reel" --target "$shm/t" --engine io_uring \
		--timing "$1" -o "$T/$1$2.reel" >"$T/out" 2>&1 || fail "replay, timing $1: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" ||
		fail "timing $1: outcomes differ: $(cat "$T/out")"
	"$IOREEL" report "$T/t.reel" "$T/$1$2.reel" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][1]
m = r["meta"]
print("%.0f %.3f %.3f" % (float(m["replay.cpu_ns.workers"]) / r["ops_measured"],
      r["span_ns"] / 1e9, float(m.get("replay.paused_ns", 0)) / 1e9))'
}

for try in 1 2 3 4 5; do
	read -r ac as ap <<<"$(run afap $try)"
	read -r oc os op <<<"$(run original $try)"
	echo "try $try: afap $ac ns/op of worker CPU, ${as} s (+${ap} s of pauses);" \
		"original $oc ns/op, ${os} s"
	echo "$ac $as $ap $oc $os" >>"$T/runs"
done
python3 - "$T/runs" <<'PY' || fail "original timing's backlog ran slower than afap's"
import statistics, sys
runs = [list(map(float, l.split())) for l in open(sys.argv[1])]
cpu = [r[3] / r[0] for r in runs]
dur = [r[4] / (r[1] + r[2]) for r in runs]
print("worker CPU per op original/afap: %s, median %.2fx" %
      (" ".join("%.2f" % x for x in cpu), statistics.median(cpu)))
print("duration original/(afap + pauses): %s, median %.2fx" %
      (" ".join("%.2f" % x for x in dur), statistics.median(dur)))
sys.exit(not (statistics.median(cpu) <= 1.5 and statistics.median(dur) <= 1.5))
PY
echo PASS
