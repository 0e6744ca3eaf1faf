#!/bin/bash
# --target and --map TO are made with their missing parents (mode 0755), as mkdir -p makes
# them: '--map *.wal=/dev/shm/a/b/wal' with no /dev/shm/a failed "cannot create target
# /dev/shm/a/b/wal: No such file or directory". A target refused (nested in another, or
# holding the traced paths) leaves nothing it made behind; one below a file is still refused.
source "$(dirname "$0")/lib.sh"

umask 022
mk t <<'SPEC'
1 1 0 1 openat path=/db/main.wal flags=O_RDONLY ret=3
1 1 1 2 pread64 fd=3 off=0 len=4096 ret=4096
1 1 2 3 close fd=3 ret=0
1 1 3 4 openat path=/db/data flags=O_RDONLY ret=3
1 1 4 5 pread64 fd=3 off=0 len=4096 ret=4096
1 1 5 6 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/x/y/tgt" --map "*.wal=$T/a/b/wal" -o "$T/r.reel" \
	>"$T/out" 2>&1 || fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "outcomes differ: $(cat "$T/out")"
[ -f "$T/x/y/tgt/db/data" ] || fail "data not prepared under the target made with its parents"
[ -f "$T/a/b/wal/main.wal" ] || fail "main.wal not prepared under the --map TO made with its parents"
for d in x x/y x/y/tgt a a/b a/b/wal; do
	[ "$(stat -c %a "$T/$d")" = 755 ] || fail "$d made with mode $(stat -c %a "$T/$d"), want 755"
done

# refused, nested: the parents the --map TO needed are removed again
! "$IOREEL" replay "$T/t.reel" --target "$T/n/t" --map "*.wal=$T/n/t/q/r" -o "$T/r2.reel" \
	>"$T/out" 2>&1 || fail "nested targets not refused"
grep -q "refusing nested targets" "$T/out" || fail "not refused as nested: $(cat "$T/out")"
[ ! -e "$T/n/t/q" ] || fail "the refused target's parents were left behind"
[ ! -e "$T/n" ] || fail "the target made for a refused --map was left behind: $(find "$T/n")"

# refused after the targets were made (the trace's paths are inside the target; the trace,
# of /db, replayed on the made directory /db's parent would be refused the same way): what
# was made goes
mk o <<SPEC
1 1 0 1 openat path=$T/o/p/db/f flags=O_RDONLY ret=3
1 1 1 2 pread64 fd=3 off=0 len=4096 ret=4096
SPEC
! "$IOREEL" replay "$T/o.reel" --target "$T/o/p" -o "$T/r4.reel" >"$T/out" 2>&1 ||
	fail "a target holding the traced paths not refused"
grep -q "refusing target: traced path .* lies inside it" "$T/out" || fail "$(cat "$T/out")"
[ ! -e "$T/o" ] || fail "the refused target was left behind: $(find "$T/o")"

# a result that cannot be made is said before anything is prepared, and the target made for
# it goes (it was found only after the whole file set was written)
! "$IOREEL" replay "$T/t.reel" --target "$T/r/t" -o "$T/no/such/dir/r.reel" >"$T/out" 2>&1 ||
	fail "a result in a missing directory accepted"
grep -q "cannot create result $T/no/such/dir/r.reel: No such file or directory" "$T/out" ||
	fail "$(cat "$T/out")"
! "$IOREEL" replay "$T/t.reel" --target "$T/r/t" -o "$T" >"$T/out" 2>&1 ||
	fail "a directory as the result accepted"
grep -q "cannot create result $T: it is a directory" "$T/out" || fail "$(cat "$T/out")"
[ ! -e "$T/r" ] || fail "the target made for a bad -o was left behind: $(find "$T/r")"

# below a file: refused, as before
touch "$T/f"
! "$IOREEL" replay "$T/t.reel" --target "$T/f/t" -o "$T/r3.reel" >"$T/out" 2>&1 ||
	fail "a target below a file not refused"
grep -q "cannot create target $T/f/t: Not a directory" "$T/out" || fail "$(cat "$T/out")"
echo PASS
