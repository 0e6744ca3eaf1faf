#!/bin/bash
# sync(2) is recorded, as a syncfs with no fd (fd -1): every file system's sync. It was not
# traced at all: Kyoto Cabinet's directory database makes its transactions durable with sync()
# (kcdirtest tran -hard: 20 calls under strace, 50 ms of a run whose recorded I/O took 62 ms),
# and none was in the trace. The recording replays with every op as traced.
source "$(dirname "$0")/lib.sh"
command -v sync > /dev/null || { echo "SKIP: no sync command"; exit 77; }
"$IOREEL" record -q -o "$dir/s.reel" -- sync ||
	{ echo "FAIL: record exited $?"; exit 1; }
n=$("$IOREEL" dump --format jsonl "$dir/s.reel" | grep -c '"op":"syncfs".*"fd":-1,.*"ret":0,')
[ "$n" = 1 ] || { echo "FAIL: $n syncfs ops with no fd for sync's sync(), want 1"; exit 1; }
"$IOREEL" replay "$dir/s.reel" --target "$dir/tgt" -o "$dir/r.reel" > "$dir/r.out" 2>&1 ||
	{ echo "FAIL: replay: $(cat "$dir/r.out")"; exit 1; }
grep -q "ops not replayed: 0" "$dir/r.out" && grep -q "outcomes differing from the original: 0" "$dir/r.out" ||
	{ echo "FAIL: replay:"; cat "$dir/r.out"; exit 1; }
echo PASS
