#!/bin/bash
# "ioreel report" sets a replay only against the capture it replayed: a result of another
# trace is refused with one line naming both (the meta replay.of_start_wall_ns against the
# original's start_wall_ns, so moving or renaming files does not matter); two captures side
# by side (before/after) are compared as traces. The replay's run shows the replayer's own
# CPU per op.
set -u
IOREEL=$1 SAMPLES=$2
d=$(mktemp -d /dev/shm/ioreel-report-id.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cp "$SAMPLES/sqlite/sqlite.reel" "$d/moved.reel"
"$IOREEL" replay "$d/moved.reel" --target "$d/tgt" --timing afap -q -o "$d/r.reel" 2>/dev/null ||
	fail "replay of the sqlite sample"
grep -q . <("$IOREEL" info "$d/r.reel" | grep replay.of_start_wall_ns) ||
	fail "the result does not name the capture it replays"

"$IOREEL" report "$SAMPLES/sqlite/sqlite.reel" "$d/r.reel" > "$d/out" 2> "$d/err" ||
	{ cat "$d/err"; fail "the replay against its own capture (at another path) was refused"; }
head -1 "$d/out" | grep -q "against 1 replay" || fail "header: $(head -1 "$d/out")"
# the replayer's own CPU per op, from the result's meta
grep -Eq "replayer CPU per op: [0-9.]+ [nµm]?s in the workers .*, [0-9.]+ [nµm]?s dispatching, [0-9.]+ [nµm]?s writing results" \
	"$d/out" || fail "no replayer CPU line: $(grep -n replayer "$d/out")"

"$IOREEL" report "$SAMPLES/postgres/pgbench.reel" "$d/r.reel" > "$d/out" 2> "$d/err"
rc=$?
[ $rc = 1 ] || fail "a replay of sqlite set against the pgbench capture: exit $rc"
[ "$(wc -l < "$d/err")" = 1 ] || { cat "$d/err"; fail "not one line of error"; }
grep -q "failed to report on $d/r.reel: it is a replay of $d/moved.reel .*, not of $SAMPLES/postgres/pgbench.reel" \
	"$d/err" || { cat "$d/err"; fail "the error does not name both traces"; }
[ ! -s "$d/out" ] || fail "a report was printed anyway"

"$IOREEL" report "$SAMPLES/sqlite/sqlite.reel" "$SAMPLES/postgres/pgbench.reel" > "$d/out" 2> "$d/err" ||
	{ cat "$d/err"; fail "two captures side by side were refused"; }
head -1 "$d/out" | grep -q "against 1 trace " || fail "header: $(head -1 "$d/out")"
echo PASS
