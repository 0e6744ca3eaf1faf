#!/bin/bash
# A thread spins on stat() of a name until another thread's create of it is done, then until
# its unlink is (lookup_race.c): of the stats that enter while the create (or unlink) runs,
# some look before it takes effect and fail ENOENT (succeed). Trace order is by entry, so they
# come after it; the replay must still run them before it, as they ran (replay_lookahead.c),
# so that no outcome differs, in every timing.
source "$(dirname "$0")/lib.sh"
LR=$3
mkdir "$dir/app" || exit 1
"$IOREEL" record -q -o "$dir/t.reel" -- "$LR" "$dir/app" 100 ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" >"$dir/t.jsonl" || { echo "FAIL: dump"; exit 1; }
# the stats on the wrong side of a create or unlink of their name in the trace: after it that
# did not see it, before it (overlapping it) that did
python3 - "$dir/t.jsonl" <<'PY' >"$dir/overlaps" || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
stats = [(i, o) for i, o in enumerate(ops) if o["op"] in ("newfstatat", "stat", "statx")]
n = 0
for i, c in enumerate(ops):
	if c["op"] not in ("openat", "unlink"):
		continue
	made = c["op"] == "openat"
	for j, o in stats:
		if o["path"] != c["path"] or o["end_ns"] <= c["start_ns"] or o["start_ns"] >= c["end_ns"]:
			continue
		saw = (o["ret"] == 0) == made
		n += (j > i and not saw) or (j < i and saw)
print(n)
PY
echo "stats on the wrong side of a create or unlink of their name in trace order: $(cat "$dir/overlaps")"
fail=0
for timing in original think afap; do
	rm -rf "$dir/tgt"
	"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T $timing -o "$dir/r.reel" \
		>"$dir/out" 2>&1 || { echo "FAIL: replay -T $timing exited $?"; cat "$dir/out"; exit 1; }
	grep -q "outcomes differing from the original: 0$" "$dir/out" ||
		{ echo "FAIL: -T $timing: outcomes differ:"; grep -A6 differing "$dir/out"; fail=1; }
done
[ $fail = 0 ] && echo "PASS"
exit $fail
