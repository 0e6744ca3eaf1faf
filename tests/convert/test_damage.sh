#!/bin/bash
# Damage in the middle of a trace: dump and info report it with its byte offset, go on with
# the ops after it, and exit 1. A file that is no trace at all fails with one line.
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
N=400
"$MKTRACE" "$dir/t.reel" --many $N || { echo "FAIL: mktrace"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" | grep -c . > "$dir/n" && [ "$(cat "$dir/n")" = $N ] ||
	{ echo "FAIL: whole trace: $(cat "$dir/n") ops, want $N"; exit 1; }
size=$(stat -c %s "$dir/t.reel")
# flip bytes at the middle of the file: one chunk (16 ops) or two become unreadable
python3 - "$dir/t.reel" $((size / 2)) <<'PY'
import sys
p, off = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read())
for i in range(off, off + 8):
    b[i] ^= 0xff
open(p, "wb").write(bytes(b))
PY
"$IOREEL" dump --format jsonl "$dir/t.reel" > "$dir/d.jsonl" 2> "$dir/d.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: dump of a damaged trace exited $rc, want 1"; exit 1; }
grep -Eq '^ioreel: damaged trace at byte [0-9]+: ' "$dir/d.err" ||
	{ echo "FAIL: no damage line:"; cat "$dir/d.err"; exit 1; }
python3 - "$dir/d.jsonl" $N <<'PY' || exit 1
import json, sys
offs = [json.loads(l)["offset"] // 4096 for l in open(sys.argv[1])]
n = int(sys.argv[2])
lost = n - len(offs)
if not (0 < lost <= 48):
    print("FAIL: %d ops lost, want one to three chunks of 16" % lost); sys.exit(1)
if offs[0] != 0 or offs[-1] != n - 1:
    print("FAIL: ops before or after the damage are missing"); sys.exit(1)
if offs != sorted(offs):
    print("FAIL: ops out of order"); sys.exit(1)
PY
"$IOREEL" info --json "$dir/t.reel" > "$dir/i.json" 2>/dev/null
rc=$?
[ $rc = 1 ] || { echo "FAIL: info of a damaged trace exited $rc, want 1"; exit 1; }
python3 - "$dir/i.json" "$dir/d.jsonl" <<'PY' || exit 1
import json, sys
i = json.load(open(sys.argv[1]))
n = sum(1 for _ in open(sys.argv[2]))
if i["ops"] != n or i["damaged_regions"] < 1 or not i["damage"] or i["damage"][0]["offset"] <= 0:
    print("FAIL: info %s" % {k: i[k] for k in ("ops", "damaged_regions", "damage")}); sys.exit(1)
PY
echo "not a trace" > "$dir/bad.reel"
"$IOREEL" info "$dir/bad.reel" > /dev/null 2> "$dir/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$dir/bad.err")" = 1 ] && grep -q '^ioreel: failed to open' "$dir/bad.err" ||
	{ echo "FAIL: not-a-trace: exit $rc, stderr:"; cat "$dir/bad.err"; exit 1; }
echo PASS
