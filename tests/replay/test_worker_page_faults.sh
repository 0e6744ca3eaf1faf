#!/bin/bash
# The worker threads take no page faults of their own inside the replay: their result batches
# are allocated and written to before time 0 (replay_run.c, run__batches_ahead). As fast as
# possible, a segment's results all wait for its pause, so the first segment's (~12 MiB)
# came fresh from the allocator, each page faulted in by a worker between two ops: ~3200
# faults over this trace, ~1 % of the rate. The result's meta replay.worker_page_faults
# counts the workers' minor faults from their first op on (the file's page cache is mapped
# nowhere: a few at most).
# And each worker's data buffer, with its thread's malloc arena, is made before its first
# op: made at its first read or write, 16 threads' first 64 KiB preads took 270 faults
# (the buffer's pages, the arena's) and were ~50-100 us late for them.
source "$(dirname "$0")/lib.sh"
"$GEN_TRACE" --mode afap -o "$T/t.reel" -t 1 -n 200000 -s $((8 << 20)) --seed 3 ||
	fail "gen_trace"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -q -o "$T/r.reel" ||
	fail "replay"
faults=$("$IOREEL" info "$T/r.reel" | sed -n 's/^ *replay.worker_page_faults *//p')
echo "worker page faults: $faults"
[ -n "$faults" ] || fail "no replay.worker_page_faults in the result's meta"
[ "$faults" -lt 1000 ] || fail "the worker took $faults page faults inside the replay"

"$GEN_TRACE" -o "$T/t16.reel" -t 16 -r 2000 -d 1 --bs 65536 --seed 3 || fail "gen_trace"
"$IOREEL" replay "$T/t16.reel" --target "$T/tgt16" --timing original -q -o "$T/r16.reel" ||
	fail "replay, 16 threads"
faults=$("$IOREEL" info "$T/r16.reel" | sed -n 's/^ *replay.worker_page_faults *//p')
echo "16 workers, 64 KiB preads: $faults page faults"
[ -n "$faults" ] && [ "$faults" -lt 16 ] ||
	fail "16 workers took $faults page faults in their ops: their buffers made in them"
echo PASS
