#!/bin/bash
# A file there before the capture, opened during it and written in place: the open records
# the size the file had then (aux = size + 1, FORMAT.md), so that a replay prepares it that
# long and the pwrite stays in place, as the PostgreSQL WAL segment's do.
source "$(dirname "$0")/lib.sh"
PROG=$3
mkdir "$dir/app" || exit 1
head -c 1048576 /dev/zero > "$dir/app/f" || exit 1
"$IOREEL" record -q -o "$dir/t.reel" -- "$PROG" "$dir/app" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" > "$dir/ops.jsonl" ||
	{ echo "FAIL: dump exited $?"; exit 1; }
python3 - "$dir/ops.jsonl" "$dir/app/f" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ops = [o for o in ops if o.get("path") == sys.argv[2]]
opens = [o for o in ops if o.get("op") in ("open", "openat", "openat2")]
if not opens:
	sys.exit("FAIL: no open of %s in the trace: %r" % (sys.argv[2], ops))
if opens[0].get("aux") != 1048577:
	sys.exit("FAIL: the open's aux is %r, not 1048577 (1 MiB + 1)" % opens[0].get("aux"))
if not any(o.get("op") == "pwrite64" and o.get("offset") == 4096 for o in ops):
	sys.exit("FAIL: no pwrite64 at 4096 on the file")
PY
echo "PASS"
