#!/bin/bash
# Paths are bytes: dump --format jsonl writes well-formed UTF-8 as it is ("/app/ÿ", C3 BF,
# not "\u00c3\u00bf") and any other byte B as \udcBB, so that Python's json then
# os.fsencode (surrogateescape) gets the exact bytes back; info --json's strings likewise.
# The text dump escapes the backslash itself: a name holding a backslash and an n and one
# holding a newline do not both show as "\n".
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# strace prints non-ASCII bytes in octal; -o's lines, one op each
printf '%s\n' \
	'3000  1700000000.0001 openat(AT_FDCWD, "/app/\303\277", O_RDONLY) = 3 <0.00001>' \
	'3000  1700000000.0002 openat(AT_FDCWD, "/app/\377x\303", O_RDONLY) = 4 <0.00001>' \
	'3000  1700000000.0003 openat(AT_FDCWD, "/app/a\\nb", O_RDONLY) = 5 <0.00001>' \
	'3000  1700000000.0004 openat(AT_FDCWD, "/app/a\nb", O_RDONLY) = 6 <0.00001>' \
	> "$dir/n.strace"
"$IOREEL" import strace "$dir/n.strace" -o "$dir/n.reel" 2> /dev/null || fail "import"
"$IOREEL" dump "$dir/n.reel" --format jsonl > "$dir/n.jsonl" || fail "dump jsonl"
python3 - "$dir/n.jsonl" <<'PY' || exit 1
import json, os, sys
want = [b"/app/\xc3\xbf", b"/app/\xffx\xc3", b"/app/a\\nb", b"/app/a\nb"]
raw = open(sys.argv[1], "rb").read()
lines = raw.decode("utf-8").splitlines()  # the document itself is UTF-8
got = [json.loads(l)["path"] for l in lines]
if got[0] != "/app/\u00ff":
    print("FAIL: UTF-8 path read as %r, want '/app/\u00ff'" % got[0]); sys.exit(1)
if b'"/app/\xc3\xbf"' not in raw:
    print("FAIL: UTF-8 path not written as it is: %r" % lines[0]); sys.exit(1)
if "\\udcffx\\udcc3" not in lines[1]:
    print("FAIL: bytes that are not UTF-8 not surrogate-escaped: %r" % lines[1]); sys.exit(1)
back = [os.fsencode(p) for p in got]
if back != want:
    print("FAIL: paths back as bytes %r, want %r" % (back, want)); sys.exit(1)
PY
"$IOREEL" info --json "$dir/n.reel" > /dev/null || fail "info --json"

"$IOREEL" dump "$dir/n.reel" > "$dir/n.txt" || fail "dump text"
grep -Fq ' /app/a\\nb' "$dir/n.txt" || fail "backslash in a path not escaped: $(cat "$dir/n.txt")"
grep -Fq ' /app/a\nb' "$dir/n.txt" || fail "newline in a path not escaped: $(cat "$dir/n.txt")"
[ "$(grep -c ' /app/a\\nb$' "$dir/n.txt")" = 1 ] || fail "two paths show alike: $(cat "$dir/n.txt")"
echo PASS
