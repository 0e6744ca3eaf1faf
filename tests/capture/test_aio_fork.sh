#!/bin/bash
# libaio in two processes forked from one parent (fio --numjobs with ioengine=libaio): their
# iocbs lie at the same addresses. Every aio_complete must carry its own process's request
# (file, offset, length), and none may be left without one: the capture paired completions
# by the iocb's address alone, so one process's completions took the other's requests
# ("info" then counted reads as writes and bytes under the wrong file). A request's id in the
# trace is its iocb's address, which tells apart requests whose aio_data are the same.
source "$(dirname "$0")/lib.sh"
AIO_FORK=$3
mkdir "$dir/app" || exit 1
"$IOREEL" record -q -o "$dir/t.reel" -- "$AIO_FORK" "$dir/app" 50 ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
awk -v app="$dir/app" '
/^op=aio_(submit|complete) / {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
	op = $1
	if (f["path"] == app "/aio.0") { want = 4096 } else if (f["path"] == app "/aio.1") { want = 1024 }
	else { printf "FAIL: %s of pid %s has path %s\n", op, f["pid"], f["path"]; bad++; next }
	if (!(f["pid"] in file)) file[f["pid"]] = f["path"]
	if (file[f["pid"]] != f["path"]) {
		printf "FAIL: %s of pid %s names %s, its process reads %s\n", op, f["pid"], f["path"], file[f["pid"]]
		bad++
	}
	if (f["len"] != want || f["offset"] % want) {
		printf "FAIL: %s of %s: offset %s len %s, not its own request\n", op, f["path"], f["offset"], f["len"]
		bad++
	}
	n[op]++
}
END {
	if (n["op=aio_submit"] != 400 || n["op=aio_complete"] != 400) {
		printf "FAIL: %d submissions, %d completions, want 400 each\n", n["op=aio_submit"], n["op=aio_complete"]
		bad++
	}
	exit bad ? 1 : 0
}' "$dir/ops.txt" | head -20
fail=${PIPESTATUS[0]}
# A's requests all have aio_data 0: their ids (aux) must still differ while in flight, or a
# replay pairs a completion with the wrong request and serializes them all (fio's libaio
# jobs replayed at queue depth 1, 2.5 times as long)
awk '/^op=aio_(submit|complete) / {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
	k = f["pid"] " " f["ctx"] " " f["aux"]
	if ($1 == "op=aio_submit") {
		if (k in busy) { printf "FAIL: request id %s submitted again while in flight\n", k; bad++ }
		busy[k] = 1
	} else if (!(k in busy)) {
		printf "FAIL: completion of %s, no request of that id in flight\n", k; bad++
	} else
		delete busy[k]
} END { exit bad ? 1 : 0 }' "$dir/ops.txt" | head -5
[ "${PIPESTATUS[0]}" = 0 ] || fail=1
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" >"$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
grep -q "outcomes differing from the original: 0" "$dir/out" &&
	grep -q "ops not replayed: 0" "$dir/out" || {
	echo "FAIL: the replay differs:"
	grep -B2 -A5 "outcomes differing" "$dir/out"
	fail=1
}
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
