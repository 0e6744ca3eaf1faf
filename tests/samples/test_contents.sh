#!/bin/bash
# A committed sample trace is whole (ioreel info: no damage, no lost events, footer count =
# ops read) and plausibly what its record script ran: >1000 ops of several types, the
# recorded program in its meta, enough threads, real I/O on the database files, every path
# printable and either under the scratch dir it was recorded in or a system path; and, as
# recorded in format 1.4, the processes' lives (the command's execve first and its exit last;
# a -p recording's forks each with its child's exit) and the locks the application takes.
source "$(dirname "$0")/lib.sh" "$1"

out=$(mktemp /var/tmp/ioreel-samples-test.XXXXXX)
trap 'rm -f "$out" "$out.jsonl"' EXIT
"$IOREEL" info --json "$TRACE" > "$out" || fail "ioreel info $TRACE exited $?"
"$IOREEL" dump --format jsonl "$TRACE" > "$out.jsonl" || fail "ioreel dump $TRACE exited $?"
python3 "$HERE/check_contents.py" "$out" "$out.jsonl" "$SCRATCH" "$PROGRAM" "$DBFILES" \
	"$MIN_THREADS" "$MIN_LOCKS"
