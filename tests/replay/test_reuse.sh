#!/bin/bash
# A prepared target that still matches is reused ("reusing prepared file set"); a replay
# that created/deleted/renamed files makes the next run prepare again; --fresh always
# does; a non-empty target that ioreel did not prepare is refused without --fresh.
source "$(dirname "$0")/lib.sh"

mk ro <<'SPEC'
100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=0 len=8192 ret=8192
100 100 200 210 close fd=3 ret=0
SPEC
mk rw <<'SPEC'
100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=0 len=8192 ret=8192
100 100 200 210 close fd=3 ret=0
100 100 300 310 openat path=/d/new flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
100 100 400 410 pwrite64 fd=3 off=0 len=10 ret=10
100 100 500 510 close fd=3 ret=0
100 100 600 610 rename path=/d/new path2=/d/final ret=0
100 100 700 710 unlink path=/d/a ret=0
SPEC
run() { "$IOREEL" replay "$T/$1.reel" --target "$T/tgt$2" -o "$T/r.reel" -q "${@:3}" 2>"$T/err"; }
run ro 1 || fail "ro 1"
! grep -q reusing "$T/err" || fail "first run reused"
run ro 1 || fail "ro 2"
grep -q "reusing prepared file set" "$T/err" || fail "second run did not reuse"
run ro 1 --fresh || fail "ro fresh"
! grep -q reusing "$T/err" || fail "--fresh reused"
# a file of the set changed size: prepared again
truncate -s 1 "$T/tgt1/d/a"
run ro 1 || fail "ro 3"
! grep -q reusing "$T/err" || fail "reused a changed file set"
[ "$(stat -c %s "$T/tgt1/d/a")" = 8192 ] || fail "d/a not restored"

run rw 2 || fail "rw 1"
[ -e "$T/tgt2/d/final" ] && [ ! -e "$T/tgt2/d/a" ] && [ ! -e "$T/tgt2/d/new" ] ||
	fail "rw replay did not create/rename/unlink"
grep -q "outcomes" "$T/err" && fail "unexpected output"
run rw 2 || fail "rw 2: $(cat "$T/err")"
! grep -q reusing "$T/err" || fail "reused a file set the replay had changed"
"$IOREEL" dump --format jsonl "$T/r.reel" | grep -q '"err":' || true
"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
bad = [o for o in map(json.loads, sys.stdin) if o["ret"] < 0]
sys.exit(1 if bad else 0)' || fail "second rw replay had failures (stale target?)"

mkdir -p "$T/tgt3" && echo precious >"$T/tgt3/keep"
run ro 3 && fail "non-empty foreign target accepted"
grep -q "not empty and was not prepared by ioreel" "$T/err" || fail "bad message: $(cat "$T/err")"
[ "$(cat "$T/tgt3/keep")" = precious ] || fail "foreign target touched"
run ro 3 --fresh || fail "--fresh on foreign target"
[ ! -e "$T/tgt3/keep" ] || fail "--fresh did not wipe"
echo PASS
