#!/bin/bash
# report: async requests that share an id while in flight are each measured, from their own
# submission to their own completion. An import of strace has each iocb's aio_data for id
# (FORMAT.md), which fio and other applications leave 0 in every iocb of an io_submit; the
# report kept one request per (pid, ctx, aux, submission): of 4 iocbs of one io_submit 1 op
# was measured, and 3 completions were "without submission". Here an strace log: an
# io_submit of 4 reads with aio_data 0, 2 reaped 1 ms later; an io_submit of 2 writes with
# aio_data 0; the 2 reads left, reaped 3 ms after their submission; the writes, 2.5 ms after
# theirs. Each completion is its id's oldest request, as the importer paired it (it carries
# that request's offset). And a trace as a recorder writes it, where completions carry their
# submission time: 3 io_uring reads with user_data 0 in one io_uring_enter, completed 50,
# 150 and 300 us later.
# usage: report_async_same_id_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup async-same-id "$@"

iocb() { # aio_data opcode offset
	printf '{aio_data=%s, aio_lio_opcode=%s, aio_fildes=3</srv/db/x>, aio_buf=0x1000, aio_nbytes=4096, aio_offset=%s}' "$@"
}
event() { # obj
	printf '{data=0, obj=%s, res=4096, res2=0}' "$1"
}
{
	echo '3000  1700000000.000000 openat(AT_FDCWD, "/srv/db/x", O_RDWR|O_DIRECT) = 3</srv/db/x> <0.000010>'
	echo '3000  1700000000.001000 io_setup(8, [0x7f1000000000]) = 0 <0.000010>'
	echo "3000  1700000000.002000 io_submit(0x7f1000000000, 4, [$(iocb 0 IOCB_CMD_PREAD 0), $(iocb 0 IOCB_CMD_PREAD 4096), $(iocb 0 IOCB_CMD_PREAD 8192), $(iocb 0 IOCB_CMD_PREAD 12288)]) = 4 <0.000020>"
	echo "3000  1700000000.002100 io_getevents(0x7f1000000000, 1, 8, [$(event 0x5000), $(event 0x5040)], NULL) = 2 <0.000900>"
	echo "3000  1700000000.003500 io_submit(0x7f1000000000, 2, [$(iocb 0 IOCB_CMD_PWRITE 16384), $(iocb 0 IOCB_CMD_PWRITE 20480)]) = 2 <0.000020>"
	echo "3000  1700000000.004000 io_getevents(0x7f1000000000, 1, 8, [$(event 0x5080), $(event 0x50c0)], NULL) = 2 <0.001000>"
	echo "3000  1700000000.005500 io_getevents(0x7f1000000000, 1, 8, [$(event 0x6000), $(event 0x6040)], NULL) = 2 <0.000500>"
} >"$T/a.strace"
"$IOREEL" import strace "$T/a.strace" -o "$T/a.reel" 2>"$T/import.err" ||
	{ echo "FAIL: import: $(cat "$T/import.err")"; exit 1; }

python3 - "$T" <<'PY' || exit 1
import sys
d = sys.argv[1]
spec = ["100 100 0 10 openat path=/db/f flags=O_RDWR ret=3"]
a = "fd=3 path=/db/f len=4096 ctx=9 aux=0 subop=22"
for i in range(3):
    spec.append("100 100 100 100 uring_submit %s off=%d ret=0" % (a, i * 4096))
for i, dur in enumerate((50, 150, 300)):
    spec.append("100 100 100 %d uring_complete %s off=%d ret=4096" % (100 + dur, a, i * 4096))
open(d + "/u.txt", "w").write("\n".join(spec) + "\n")
PY
"$MKTRACE" "$T/u.reel" <"$T/u.txt" || exit 1

"$IOREEL" report --json "$T/a.reel" >"$T/a.json" || { echo "FAIL: report of the import"; exit 1; }
"$IOREEL" report --json "$T/u.reel" >"$T/u.json" || { echo "FAIL: report of the io_uring trace"; exit 1; }
python3 - "$T/a.json" "$T/u.json" <<'PY'
import json, sys
fails = []
def check(path, want_requests, want_kinds, want_depth):
    run = json.load(open(path))["runs"][0]
    for key in ("async_unmatched", "async_unreaped"):
        if run[key]:
            fails.append("%s: %s %d, want 0" % (path, key, run[key]))
    if run["async_requests"] != want_requests:
        fails.append("%s: %d async requests measured, want %d" %
                     (path, run["async_requests"], want_requests))
    if abs(run["async_in_flight"] - want_depth) > 0.01:
        fails.append("%s: %.2f in flight on average, want %.2f" %
                     (path, run["async_in_flight"], want_depth))
    for kind, (count, lo, hi, total) in want_kinds.items():
        k = run["ops_by_type"].get(kind)
        got = k and (k["count"], k["min_ns"], k["max_ns"], k["total_ns"])
        if got != (count, lo, hi, total):
            fails.append("%s: %s (count, min, max, total) %r, want %r" %
                         (path, kind, got, (count, lo, hi, total)))
# reads: 1, 1, 3, 3 ms; writes 2.5 ms each; 13 ms of requests over 2.0 - 6.0 ms
check(sys.argv[1], 6, {"aio_pread": (4, 1000000, 3000000, 8000000),
                       "aio_pwrite": (2, 2500000, 2500000, 5000000)}, 13 / 4)
# 50, 150 and 300 us; 500 us of requests over 100 - 400 us
check(sys.argv[2], 3, {"uring_read": (3, 50000, 300000, 500000)}, 500 / 300)
for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else "%d checks failed" % len(fails))
sys.exit(1 if fails else 0)
PY
