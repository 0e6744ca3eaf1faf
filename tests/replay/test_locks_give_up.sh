#!/bin/bash
# A blocking lock request the replay cannot grant, because the release that let the original
# have it is not in the trace (here: never recorded), must not hang the replay: after 1 s
# plus 4x the original's wait it fails EINTR, is named among the differing outcomes, counted
# on the summary and in the result's meta, and the ops after it still replay.
source "$(dirname "$0")/lib.sh"

# F_SETLK 6, F_SETLKW 7; F_WRLCK 1; LOCK_EX 2
mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/d/f flags=O_RDWR|O_CREAT mode=0644 ret=5
200 200 150 160 openat fd=-100 path=/d/f flags=O_RDWR ret=5
100 100 200 210 fcntl_lock fd=5 path=/d/f flags=6 mode=1 off=0 len=0 ret=0
100 100 250 260 flock fd=5 path=/d/f mode=2 ret=0
200 200 1000 101000 fcntl_lock fd=5 path=/d/f flags=7 mode=1 off=0 len=1 ret=0
200 200 102000 103000 flock fd=5 path=/d/f mode=2 ret=0
200 200 104000 104010 pwrite64 fd=5 path=/d/f off=0 len=4096 ret=4096
200 200 105000 105010 close fd=5 path=/d/f ret=0
100 100 200000 200010 close fd=5 path=/d/f ret=0
SPEC
start=$(date +%s%N)
timeout -s KILL 30 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" > "$T/out" 2>&1 ||
	fail "replay: status $? (137: hung): $(cat "$T/out")"
took=$((($(date +%s%N) - start) / 1000000))
grep -q "^  2 lock requests waited past their time" "$T/out" || fail "no give-up count: $(cat "$T/out")"
grep -q "outcomes differing from the original: 2" "$T/out" || fail "want 2 differing: $(cat "$T/out")"
"$IOREEL" info --json "$T/r.reel" | grep -q '"replay.lock_waits_abandoned":"2"' ||
	fail "meta replay.lock_waits_abandoned is not 2"
got=$("$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
for o in map(json.loads, sys.stdin):
    if o["pid"] == 200 and o["op"] in ("fcntl_lock", "flock", "pwrite64"):
        print(o["op"], o["ret"], (o["end_ns"] - o["start_ns"]) // 1000000)')
echo "$got"
# 1 s + 4 x 100 ms, and 1 s + 4 x 1 ms; the write after them still made
echo "$got" | grep -qE '^fcntl_lock -4 (1[34][0-9][0-9])$' || fail "F_SETLKW not given up after ~1.4 s"
echo "$got" | grep -qE '^flock -4 (1[0-9][0-9][0-9])$' || fail "flock not given up after ~1 s"
echo "$got" | grep -q '^pwrite64 4096 ' || fail "the write after them did not replay"
[ "$took" -lt 10000 ] || fail "replay took $took ms"
check_size "$T/tgt/d/f" 4096 "the write after the given-up requests"
echo PASS
