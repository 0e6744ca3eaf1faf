#!/bin/bash
# idle_cpus.sh - why PostgreSQL's WAL writes replay slower than recorded: the replay leaves
# the CPUs idle between ops, the application kept them busy.
#
#   bash tests/bench_replay/idle_cpus.sh          # short form (label bench): 2 pairs
#   bash tests/bench_replay/idle_cpus.sh --full   # full form: 6 pairs
#
# The shipped PostgreSQL sample (pgbench, 4 clients, 8 s, recorded on ext4 under /var/tmp)
# replayed with its original timing onto a target under /var/tmp, as samples_fidelity does,
# in pairs run back to back (in turn first):
#   idle  the replay alone: between ops its workers sleep and the CPUs go idle (a VM's
#         vCPU halts, and the host may give the core to another guest);
#   busy  the same with one `nice -n 19` busy loop pinned to each CPU, which any replay
#         thread preempts at once: the CPUs never idle, as under the application, whose
#         backends parse and plan queries and whose pgbench client builds them between
#         the syscalls the trace holds.
# For each: the WAL's pwrite64 p50 and p90 (8 KiB and 16 KiB buffered writes, overwriting
# the segment), fdatasync p50, and lateness p50, medians over the pairs; beside them the
# original's, from the trace; "overlap", the WAL writes that started while another thread
# synced the WAL (none: PostgreSQL's WALWriteLock keeps them apart, and so does the replay's
# order). The finding it measures: a syscall that starts on a CPU just
# woken from idle runs slower (the wake, and caches the idle let go cold). A replay thread
# woken for its next op pays that where the application's did not.
# What it costs, and why ioreel does not keep the CPUs busy itself: on this VM the replay
# then fell behind its schedule by seconds far more often (median lateness 0.9-4.3 s in 7
# of 12 busy replays, against 0.2-1.1 s in 2 of 12 idle ones, two runs on 2026-12-03),
# though its syncs were no slower at p50: whatever the busy vCPUs take from (the host's own
# threads, the disk's emulation), the replay's pace pays. The late p50 column shows it.
# No target: it prints what it measured; a broken run exits 1, 77 when it cannot run here.
set -u
source "$(dirname "$0")/rbench_lib.sh"
rb_init idle_cpus "$@"

TRACE=$RB_ROOT/samples/postgres/pgbench.reel
[ -f "$TRACE" ] || rb_skip "the PostgreSQL sample is not in this checkout"
[ "$RB_FULL" = 1 ] && PAIRS=6 || PAIRS=2
TGT=$(mktemp -d /var/tmp/rbench-idle-cpus.XXXXXX) || rb_fail "no target dir under /var/tmp"
BURNERS=()
stop_burners() {
	[ ${#BURNERS[@]} -gt 0 ] && kill "${BURNERS[@]}" 2>/dev/null && wait "${BURNERS[@]}" 2>/dev/null
	BURNERS=()
}
trap 'stop_burners; rm -rf "$TGT"; rb_cleanup' EXIT

# stats JSONL [result]: "wal50=NS wal90=NS sync50=NS late50=NS overlap=N" of a trace's
# dump; lateness only for a result (0 for the original)
stats() {
	python3 - "$@" <<'PY'
import bisect, json, sys
def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0
wal, sync, late, walops, walsyncs = [], [], [], [], []
for line in open(sys.argv[1]):
    o = json.loads(line)
    d = o["end_ns"] - o["start_ns"]
    on_wal = bool(o["path"]) and "/pg_wal/" in o["path"]
    if o["op"] == "pwrite64" and on_wal:
        wal.append(d)
        walops.append(o)
    elif o["op"] == "fdatasync":
        sync.append(d)
        if on_wal:
            walsyncs.append(o)
    if len(sys.argv) > 2 and o["sched_ns"] is not None:
        late.append(o["start_ns"] - o["sched_ns"])
# WAL writes that started while another thread synced the WAL: the one interplay that could
# slow a write here (PostgreSQL's WALWriteLock keeps them apart; the replay's order must too)
walsyncs.sort(key=lambda o: o["start_ns"])
starts = [o["start_ns"] for o in walsyncs]
ovl = 0
for w in walops:
    i = bisect.bisect_right(starts, w["start_ns"])
    ovl += any(s["end_ns"] > w["start_ns"] and s["tid"] != w["tid"]
               for s in walsyncs[max(0, i - 64):i])
print("wal50=%d wal90=%d sync50=%d late50=%d overlap=%d" %
      (pct(wal, .5), pct(wal, .9), pct(sync, .5), pct(late, .5) if late else 0, ovl))
PY
}

# replay MODE I: one replay (a fresh result each time; the prepared file set is reused)
replay() {
	local out=$RB_SCRATCH/$1$2.reel
	if [ "$1" = busy ]; then
		for c in $(taskset -pc $$ | sed 's/.*: //' | tr ',' ' '); do
			case $c in *-*) c=$(seq "${c%-*}" "${c#*-}") ;; esac
			for cpu in $c; do
				nice -n 19 taskset -c "$cpu" bash -c 'while :; do :; done' &
				BURNERS+=($!)
			done
		done
	fi
	"$IOREEL" replay "$TRACE" --target "$TGT" -q -o "$out" >"$RB_SCRATCH/log" 2>&1
	local rc=$?
	stop_burners
	[ $rc = 0 ] || rb_fail "replay ($1): $(tail -3 "$RB_SCRATCH/log")"
	"$IOREEL" dump "$out" --format jsonl >"$RB_SCRATCH/r.jsonl" || rb_fail "dump of the result"
	rm -f "$out"
	stats "$RB_SCRATCH/r.jsonl" result
}

"$IOREEL" dump "$TRACE" --format jsonl >"$RB_SCRATCH/o.jsonl" || rb_fail "dump of the sample"
ORIG=$(stats "$RB_SCRATCH/o.jsonl")
IDLE=() BUSY=()
for ((i = 1; i <= PAIRS; i++)); do
	# each replay in a subshell of its own: a broken one stops the run here
	if ((i % 2)); then
		a=$(replay idle "$i") || exit 1
		b=$(replay busy "$i") || exit 1
	else
		b=$(replay busy "$i") || exit 1
		a=$(replay idle "$i") || exit 1
	fi
	IDLE+=("$a")
	BUSY+=("$b")
	rb_say "pair $i: idle ${IDLE[-1]}; busy ${BUSY[-1]}"
done

row() { # NAME LINE... (medians of the lines)
	local name=$1
	shift
	local w50 w90 s50 l50
	w50=$(rb_median_of wal50 "$@")
	w90=$(rb_median_of wal90 "$@")
	s50=$(rb_median_of sync50 "$@")
	l50=$(rb_median_of late50 "$@")
	printf '%-44s | %8s | %8s | %7s | %8s | %8s | %7s\n' "$name" "$(rb_us "$w50")" \
		"$(rb_us "$w90")" "$(rb_ratio "$w50" "$(rb_kv "$ORIG" wal50)")" "$(rb_us "$s50")" \
		"$([ "$l50" = 0 ] && echo - || rb_us "$l50")" "$(rb_median_of overlap "$@")"
}
rb_say ""
rb_say "$(printf '%-44s | %8s | %8s | %7s | %8s | %8s | %7s' "PostgreSQL sample on /var/tmp (us)" \
	"WAL p50" "WAL p90" "vs orig" "sync p50" "late p50" "overlap")"
rb_say "$(row "original (pgbench's backends, CPUs busy)" "$ORIG")"
rb_say "$(row "replay, CPUs idle between ops (as shipped)" "${IDLE[@]}")"
rb_say "$(row "replay, a nice 19 busy loop on each CPU" "${BUSY[@]}")"
rb_say "results: $RB_OUT"
