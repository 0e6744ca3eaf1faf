#!/bin/bash
# Appends racing for one file through two O_APPEND fds (two nginx workers on their access
# log, two threads): the capture recorded each append at the file's size when it entered
# write(), stale when the other writer held the inode's lock and grew the file meanwhile
# (two threads appending to a log on ext4: 2196 of 10000 appends overlapping another's
# bytes in one run). Now each is recorded where it landed (its fd's position at exit, less
# what it wrote): the appends tile the file, each offset where the kernel put it.
source "$(dirname "$0")/lib.sh"
PROG=$3
mkdir "$dir/app" || exit 1
"$IOREEL" record -q -o "$dir/t.reel" -- "$PROG" "$dir/app" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" >"$dir/ops.jsonl" ||
	{ echo "FAIL: dump exited $?"; exit 1; }
python3 - "$dir/ops.jsonl" "$dir/app/log" <<'PY' || exit 1
import json, os, sys
ops = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
w = [o for o in ops if o.get("op") == "write" and o.get("path") == sys.argv[2]]
got = sorted((o["offset"], o["ret"], o["tid"]) for o in w)
big = 64 << 20
# the main thread's first line lands after the 64 MiB, its second after that
want = [(0, big), (big, 100), (big + 100, 100)]
if [(a, b) for a, b, _ in got] != want or os.path.getsize(sys.argv[2]) != big + 200:
	sys.exit("FAIL: appends recorded at (offset, bytes, tid) %r, want %r" % (got, want))
PY
echo "PASS"
