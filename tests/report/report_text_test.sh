#!/bin/bash
# SPDX-License-Identifier: MIT
# report_text_test.sh IOREEL MKTRACE - the text report on crafted traces: the verdict lines
# say fsync got faster on the fast replay, nothing changed on the equal one, the late one
# fell behind; the table and the hot files are there; bad input fails with one line.
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-report-text.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
expect() { # expect DESCRIPTION PATTERN (grep -E on the report)
	if ! grep -qE -- "$2" "$dir/out.txt"; then
		echo "FAIL: $1: no line matching '$2'"
		fail=1
	fi
}

"$MKTRACE" "$dir" 500 || exit 1
"$IOREEL" report "$dir/orig.reel" "$dir/fast.reel" "$dir/equal.reel" "$dir/late.reel" \
	>"$dir/out.txt" || { echo "FAIL: report exited $?"; exit 1; }
cat "$dir/out.txt"

expect "fsync faster on the RAM disk" \
	'^  - fsync p(50|99) falls from [0-9.]+ ms to [0-9.]+ µs on /dev/shm/t \([0-9]+× faster'
expect "equal replay unchanged" '^  - reads, writes, syncs unchanged on /var/tmp/t \('
expect "late replay fell behind" '^  - replay on /var/tmp/late fell behind its schedule \(wake-up lateness p99 [0-9.]+ ms'
expect "late replay flagged in the runs" 'FELL BEHIND'
expect "dominant class" '^  - syncs dominate the original.s I/O time: [0-9]+% of'
expect "fsync row of the original" '^fsync +#0 original +1000 '
expect "async rows" '^uring_read +#0 original +200 '
expect "hot files" '^ +[0-9.]+% +[0-9.]+ s +[0-9]+ ops  /data/db/wal'
expect "non-file ops said" '100 non-file ops left out'
expect "new failures said" '^  - replay on /dev/shm/t: 10 more failed ops than in the original'
expect "errors in the table" '^ +#1 /dev/shm/t +1000 .* 10 err$'
if grep -qE 'on /var/tmp/(t|late) \([0-9.]+× (faster|slower)' "$dir/out.txt"; then
	echo "FAIL: a change claimed where the distributions are the same"
	fail=1
fi

# Results alone: the original is the trace their replay.of names.
"$IOREEL" report "$dir/fast.reel" "$dir/equal.reel" >"$dir/out.txt" || fail=1
expect "original found from replay.of" "^  #0 original: $dir/orig.reel\$"
expect "results alone still compared" '^  - fsync p(50|99) falls from'

# --by file: per-file rows for the top files.
"$IOREEL" report "$dir/orig.reel" "$dir/fast.reel" --by file --top 1 >"$dir/out.txt" || fail=1
expect "by file section" '^latency by file \(the 1 with the most I/O time'
expect "by file rows" '^  fsync +#0 original +1000 '

# Errors: one line, non-zero exit.
# an input that cannot be opened as a trace: exit 2 and one line, as in every command
"$IOREEL" report "$dir/nonexistent.reel" 2>"$dir/err.txt" >/dev/null
rc=$?
if [ $rc != 2 ]; then
	echo "FAIL: a missing trace exited $rc, want 2"
	fail=1
fi
if [ "$(wc -l <"$dir/err.txt")" != 1 ] ||
	! grep -q "^ioreel: failed to open $dir/nonexistent.reel: " "$dir/err.txt"; then
	echo "FAIL: error message: $(cat "$dir/err.txt")"
	fail=1
fi
echo garbage >"$dir/bad.reel"
"$IOREEL" report "$dir/orig.reel" "$dir/bad.reel" 2>"$dir/err.txt" >/dev/null
rc=$?
if [ $rc != 2 ] || ! grep -q "failed to open $dir/bad.reel: not an ioreel trace" "$dir/err.txt"; then
	echo "FAIL: a non-trace result: exit $rc: $(cat "$dir/err.txt")"
	fail=1
fi
"$IOREEL" report --help | grep -q '^EXAMPLES:' || { echo "FAIL: --help"; fail=1; }
exit $fail
