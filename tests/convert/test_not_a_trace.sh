#!/bin/bash
# A file that cannot be opened as a trace (not an ioreel trace, another major version,
# missing) fails every command that reads a trace the same way: exit status 2, as a usage
# error (README), and one line "ioreel: failed to open X: <why>". replay makes no target then.
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$MKTRACE" "$dir/whole.reel" --many 40 || fail "mktrace"
echo "not a trace at all" > "$dir/magic.reel"
python3 - "$dir/whole.reel" "$dir/version.reel" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[8] = 2  # major version 2
open(sys.argv[2], "wb").write(bytes(b))
PY
for f in magic version missing; do
	t=$dir/$f.reel
	for cmd in info dump export slice report replay; do
		case $cmd in
		export) args=(export fio "$t" -o "$dir/x") ;;
		slice) args=(slice "$t" -o "$dir/s.reel") ;;
		replay) args=(replay "$t" --target "$dir/target" -o "$dir/r.reel") ;;
		*) args=("$cmd" "$t") ;;
		esac
		"$IOREEL" "${args[@]}" > /dev/null 2> "$dir/err"
		rc=$?
		[ $rc = 2 ] || fail "$cmd on the $f file: exit $rc, want 2: $(cat "$dir/err")"
		[ "$(wc -l < "$dir/err")" = 1 ] && grep -q "^ioreel: failed to open $t: " "$dir/err" ||
			fail "$cmd on the $f file: $(cat "$dir/err")"
	done
	[ -e "$dir/target" ] && fail "replay of the $f file made its target"
	for p in "$dir"/x* "$dir/s.reel" "$dir/r.reel"; do
		[ -e "$p" ] && fail "$p was written for the $f file"
	done
done
echo PASS
