#!/bin/bash
# A --map rule that matches no path of the trace (a typo in FROM, or an earlier rule that
# took its paths) is named on stderr, even with -q: the replay still runs, but it answers
# another question than the one asked (the WAL left on the disk, not on the RAM disk).
# Rules that match say nothing.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/db/pg_wal/0001 flags=O_RDWR|O_CREAT mode=0644 ret=3
100 100 20 30 pwrite64 fd=3 off=0 len=8192 ret=8192
100 100 40 50 fdatasync fd=3 ret=0
100 100 60 70 close fd=3 ret=0
100 100 80 90 openat path=/db/base/1 flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=0 len=8192 ret=8192
100 100 120 130 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -q -o "$T/r.reel" \
	--map "/db/pg_wall=$T/wal" --map "*/pg_wal=$T/wal2" --map "/db/pg_wal=$T/wal3" \
	2>"$T/err" || fail "replay: $(cat "$T/err")"
grep -q -- "--map /db/pg_wall=$T/wal matches no path of the trace" "$T/err" ||
	fail "no word of the rule with a typo: $(cat "$T/err")"
grep -q -- "--map /db/pg_wal=$T/wal3 matches no path" "$T/err" ||
	fail "no word of the rule an earlier one took the paths of: $(cat "$T/err")"
! grep -q -- "pg_wal=$T/wal2" "$T/err" || fail "the rule that matched is named: $(cat "$T/err")"
[ -f "$T/wal2/0001" ] || fail "the WAL is not under the rule that matched"
echo PASS
