#!/bin/bash
# Flags of async requests that change what they cost. The recorder read neither an io_uring
# request's rw_flags (struct io_rw's flags), nor its fsync's IORING_FSYNC_DATASYNC (io_sync's),
# nor a libaio iocb's aio_rw_flags: RWF_DSYNC writes replayed as buffered writes (p50 490 us
# -> 21 us on ext4, "25x faster") and fdatasync requests as fsyncs, with nothing said. Now
# the trace carries them (`flags` of uring_submit/aio_submit and their completions), the
# replay issues its requests with them (the replayer, itself recorded, shows them), the report
# has a uring_fdatasync row, and a fio export writes datasync lines.
source "$(dirname "$0")/lib.sh"
PROG=$3
N=6
"$PROG" "$dir/probe" 1
case $? in
0) ;;
2) echo "SKIP: no io_uring or libaio with RWF_DSYNC here"; exit 77 ;;
*) echo "FAIL: async_flags failed unrecorded"; exit 1 ;;
esac
# counts of "op subop flags" among the async records of a trace
counts() {
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import collections, json, sys
c = collections.Counter()
for l in sys.stdin:
    o = json.loads(l)
    if o["op"].startswith(("uring_", "aio_")):
        c["%s %d %d" % (o["op"], o["subop"], o["flags"])] += 1
for k in sorted(c):
    print(k, c[k])'
}
# want TRACE-COUNTS WHAT LINE...: each "op subop flags count" line is among the counts
want() {
	local file=$1 what=$2 line
	shift 2
	for line in "$@"; do
		grep -qx "$line" "$file" ||
			{ echo "FAIL: $what: no '$line' among:"; cat "$file"; fail=1; }
	done
}
fail=0
"$IOREEL" record -o "$dir/t.reel" -- "$PROG" "$dir/f" $N > /dev/null 2> "$dir/rec.err" ||
	{ echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
counts "$dir/t.reel" > "$dir/t.counts" || { echo "FAIL: trace unreadable"; exit 1; }
# IORING_OP_WRITE 23, RWF_DSYNC 2; IORING_OP_FSYNC 3, IORING_FSYNC_DATASYNC 1;
# IOCB_CMD_PWRITE 1, IOCB_CMD_FDSYNC 3
want "$dir/t.counts" "the recording" \
	"uring_submit 23 2 $N" "uring_complete 23 2 $N" "uring_submit 23 0 1" \
	"uring_submit 3 1 $N" "uring_complete 3 1 $N" "uring_submit 3 0 1" \
	"aio_submit 1 2 $N" "aio_complete 1 2 $N" "aio_submit 1 0 1" "aio_submit 3 0 $N"

# the replay's own requests, the replayer recorded
"$IOREEL" record -o "$dir/rr.reel" -- "$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" \
	-T afap -o "$dir/r.reel" > "$dir/out" 2> "$dir/rec2.err" ||
	{ echo "FAIL: recording the replay exited $?"; cat "$dir/out" "$dir/rec2.err"; exit 1; }
grep -q "outcomes differing from the original: 0$" "$dir/out" &&
	grep -q "ops not replayed: 0$" "$dir/out" ||
	{ echo "FAIL: the replay differs:"; cat "$dir/out"; fail=1; }
counts "$dir/rr.reel" > "$dir/rr.counts" || { echo "FAIL: replayer's trace unreadable"; exit 1; }
want "$dir/rr.counts" "the replay's requests" \
	"uring_submit 23 2 $N" "uring_submit 23 0 1" "uring_submit 3 1 $N" "uring_submit 3 0 1" \
	"aio_submit 1 2 $N" "aio_submit 1 0 1" "aio_submit 3 0 $N"

# the report: fdatasync requests in a row of their own, beside the one fsync
"$IOREEL" report "$dir/t.reel" > "$dir/report" 2>&1 || { echo "FAIL: report exited $?"; fail=1; }
grep -Eq "^uring_fdatasync +#0 original +$N " "$dir/report" &&
	grep -Eq "^uring_fsync +#0 original +1 " "$dir/report" ||
	{ echo "FAIL: the report does not tell fdatasync requests from fsyncs:"; cat "$dir/report"; fail=1; }

# fio: datasync lines (io_uring's and libaio's), the one plain fsync a sync line; the
# RWF_DSYNC writes said to be written plain
"$IOREEL" export fio "$dir/t.reel" -o "$dir/fio" > "$dir/fio.out" 2>&1 ||
	{ echo "FAIL: export exited $?"; cat "$dir/fio.out"; fail=1; }
ds=$(cat "$dir"/fio.[0-9]* | grep -c " datasync ")
sy=$(cat "$dir"/fio.[0-9]* | grep -c " sync ")
[ "$ds" = $((2 * N)) ] && [ "$sy" = 1 ] ||
	{ echo "FAIL: fio log has $ds datasync and $sy sync lines, want $((2 * N)) and 1"; fail=1; }
grep -q "cannot carry $((2 * N)) writes with RWF_DSYNC or RWF_SYNC" "$dir/fio.out" ||
	{ echo "FAIL: export does not say the RWF_DSYNC writes are written plain:"; cat "$dir/fio.out"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
