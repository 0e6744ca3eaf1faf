#!/bin/bash
# End to end from a real program: a small workload (wl_files.py: threads reading a file that
# existed, writing a new one, renaming it, a pipe and /proc on the side) is recorded with strace,
# imported with "ioreel import strace", and replayed under a target: its files come out
# with the right sizes, non-file I/O is skipped, and every replayed op has the outcome
# it had originally.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null && command -v python3 >/dev/null || exit 77

mkdir -p "$T/app/data"
head -c 300000 /dev/urandom >"$T/app/data/in.bin"
strace -f -ttt -T -y -o "$T/app.strace" python3 "$HERE/wl_files.py" "$T/app/data" ||
	fail "workload"
"$IOREEL" import strace "$T/app.strace" -o "$T/app.reel" 2>"$T/imp.err" || fail "import: $(cat "$T/imp.err")"
"$IOREEL" replay "$T/app.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
src="$T/tgt${T}/app/data"
[ -f "$src/in.bin" ] || fail "in.bin not prepared"
sz=$(stat -c %s "$src/in.bin")
# furthest byte read: (59 * 4096) + 4096
[ "$sz" = 245760 ] || fail "in.bin prepared with $sz bytes, want 245760"
[ "$(stat -c %s "$src/out.bin")" = 10000 ] || fail "out.bin not written and renamed"
[ ! -e "$src/out.tmp" ] || fail "out.tmp left behind"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "outcomes differ"
}
# the replay issued what the trace holds of the app's files (same types per thread, in order)
check_same_ops "$T/app.reel" "$T/r.reel" --prefix "$T/app/"
n=$("$IOREEL" dump --format jsonl "$T/r.reel" | grep -c "\"path\":\"$T/app/data/in.bin\".*\"op\":\"pread64\"\|\"op\":\"pread64\".*\"path\":\"$T/app/data/in.bin\"")
[ "$n" = 60 ] || fail "want 60 preads of in.bin replayed, got $n"
# and nothing of the pipe or /proc
! "$IOREEL" dump "$T/r.reel" | grep -q "/proc" || fail "/proc replayed"
echo PASS
