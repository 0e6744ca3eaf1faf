#!/bin/bash
# Nothing outside the target is touched: paths with ".." leading out, absolute and relative
# symlinks planted in the target are refused with a clear message (openat2
# RESOLVE_BENEATH), the rest replays; targets that are "/", a file, or hold the traced
# paths themselves are refused.
source "$(dirname "$0")/lib.sh"

mkdir -p "$T/outside"
echo canary > "$T/outside/f"
mk t <<SPEC
100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=0 len=100 ret=100
100 100 200 210 openat path=/d/../../../../../../$T/outside/f flags=O_WRONLY|O_TRUNC ret=4
100 100 210 220 pwrite64 fd=4 off=0 len=10 ret=10
100 100 300 310 openat path=/d/../../../../../../$T/outside/new flags=O_WRONLY|O_CREAT mode=0644 ret=5
100 101 1500000 1500010 openat path=/d/abs/f flags=O_WRONLY|O_TRUNC ret=6
100 101 1500100 1500110 pwrite64 fd=6 off=0 len=10 ret=10
100 101 1500200 1500210 openat path=/d/rel/new flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=7
100 101 1500300 1500310 unlink path=/d/abs/f ret=0
100 101 1500400 1500410 mkdir path=/d/rel/dir mode=0755 ret=0
100 100 1600000 1600010 pread64 fd=3 off=0 len=100 ret=100
SPEC
# plant the symlinks once the file set is prepared, before the ops at 1.5 s use them
(
	for _ in $(seq 200); do
		[ -e "$T/tgt/.ioreel-prepared" ] && break
		sleep 0.01
	done
	rm -rf "$T/tgt/d/abs" "$T/tgt/d/rel"
	ln -s "$T/outside" "$T/tgt/d/abs"
	ln -s ../../outside "$T/tgt/d/rel"
) &
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>"$T/err" ||
	fail "replay failed: $(cat "$T/err")"
wait
[ -L "$T/tgt/d/abs" ] && [ -L "$T/tgt/d/rel" ] || fail "symlinks were not planted in time"
[ "$(cat "$T/outside/f")" = canary ] || fail "outside file changed"
[ "$(ls "$T/outside")" = f ] || fail "files created outside: $(ls "$T/outside")"
grep -q "escapes the target" "$T/err" || fail "no message about the escape"
grep -q "not replayed: path escapes the target" "$T/out" || fail "escapes not in the summary"
# the ops that do not escape replayed, both reads included
"$IOREEL" dump --format jsonl "$T/r.reel" | grep -c '"op":"pread64"' | grep -qx 2 ||
	fail "reads did not replay"

# targets refused outright
echo x >"$T/afile"
"$IOREEL" replay "$T/t.reel" --target / -o "$T/r2.reel" 2>"$T/err2" && fail "target / accepted"
grep -q "ioreel: failed to replay.*root directory" "$T/err2" || fail "bad message: $(cat "$T/err2")"
"$IOREEL" replay "$T/t.reel" --target "$T/afile" -o "$T/r2.reel" 2>"$T/err2" &&
	fail "file target accepted"
grep -q "not a directory" "$T/err2" || fail "bad message: $(cat "$T/err2")"
mk live <<SPEC
100 100 0 10 openat path=$T/live/db flags=O_RDONLY ret=3
SPEC
"$IOREEL" replay "$T/live.reel" --target "$T/live" -o "$T/r3.reel" 2>"$T/err3" &&
	fail "target holding the traced files accepted"
grep -q "refusing target: traced path" "$T/err3" || fail "bad message: $(cat "$T/err3")"
[ ! -e "$T/live/.ioreel-prepared" ] || fail "refused target was written"
# the trace or the result inside the target (which preparing empties) is refused
mkdir -p "$T/tgt4" && cp "$T/t.reel" "$T/tgt4/t.reel"
"$IOREEL" replay "$T/tgt4/t.reel" --target "$T/tgt4" --fresh -o "$T/r4.reel" 2>"$T/err4" &&
	fail "trace inside the target accepted"
grep -q "the trace .* lies inside the target" "$T/err4" || fail "bad message: $(cat "$T/err4")"
[ -e "$T/tgt4/t.reel" ] || fail "the trace was wiped"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt5" -o "$T/tgt5/r.reel" 2>"$T/err5" &&
	fail "result inside the target accepted"
grep -q "the result .* lies inside the target" "$T/err5" || fail "bad message: $(cat "$T/err5")"
echo PASS
