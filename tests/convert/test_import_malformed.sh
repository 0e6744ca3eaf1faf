#!/bin/bash
# ioreel import strace does not make ops out of lines strace cannot have written; it skips
# them and counts them in its "could not be parsed and were skipped" line:
# - a "<... close resumed>" after an unfinished openat (a resumed line must resume its own
#   call: the openat is left waiting for its "<... openat resumed>");
# - numbers beyond what strace prints: an fd beyond an int (close(99999999999) was fd
#   1215752191), a decimal beyond 64 bits signed (offsets were clamped to 2^63-1).
# An empty path stays empty (the kernel fails it with ENOENT), not the directory it would be
# relative to; a replay fails it with ENOENT too, instead of opening the target's root.
# With AT_EMPTY_PATH on AT_FDCWD, "" is the cwd itself.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$dir/m.strace" <<'LOG'
6001  1700000000.000100 openat(AT_FDCWD</app>, "/app/y", O_RDONLY <unfinished ...>
6001  1700000000.000200 <... close resumed>) = 0 <0.000010>
6001  1700000000.000300 <... openat resumed>) = 3</app/y> <0.000200>
6001  1700000000.000400 openat(AT_FDCWD</app>, "", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000010>
6001  1700000000.000500 newfstatat(AT_FDCWD</app>, "", 0x7ffc0, 0) = -1 ENOENT (No such file or directory) <0.000010>
6001  1700000000.000600 newfstatat(AT_FDCWD</app>, "", {st_mode=S_IFDIR|0755, st_size=4096, ...}, AT_EMPTY_PATH) = 0 <0.000010>
6001  1700000000.000700 close(99999999999) = -1 EBADF (Bad file descriptor) <0.000010>
6001  1700000000.000800 pread64(3</app/y>, "", 10, 18446744073709551615) = 0 <0.000010>
6001  1700000000.000900 lseek(3</app/y>, 99999999999999999999999, SEEK_SET) = -1 EINVAL (Invalid argument) <0.000010>
6001  1700000000.001000 read(3</app/y>, "", 10) = 99999999999999999999 <0.000010>
6001  1700000000.001100 openat(99999999999, "z", O_RDONLY) = -1 EBADF (Bad file descriptor) <0.000010>
6001  1700000000.001200 pread64(3</app/y>, "abcd", 4, 4096) = 4 <0.000010>
6001  1700000000.001250 lseek(3</app/y>, 9223372036854775807, SEEK_SET) = -1 EINVAL (Invalid argument) <0.000010>
6001  1700000000.001300 close(3</app/y>) = 0 <0.000010>
LOG
"$IOREEL" import strace "$dir/m.strace" -o "$dir/m.reel" 2> "$dir/err" || fail "import: $(cat "$dir/err")"
grep -q '^ioreel: 6 line(s) of .* could not be parsed and were skipped (first: line 2)$' "$dir/err" ||
	fail "skipped lines not counted: $(cat "$dir/err")"
"$IOREEL" dump "$dir/m.reel" --format jsonl > "$dir/m.jsonl" || fail "dump"
python3 - "$dir/m.jsonl" <<'PY' || exit 1
import json, sys
got = [(o["op"], o["path"], o["fd"], o["offset"], o["ret"]) for o in map(json.loads, open(sys.argv[1]))]
want = [
    ("openat", "/app/y", -100, 0, 3),     # its own resumption, not close's
    ("openat", "", -100, 0, -2),          # empty, not "/app"
    ("newfstatat", "", -100, 0, -2),
    ("newfstatat", "/app", -100, 0, 0),   # AT_EMPTY_PATH on AT_FDCWD: the cwd
    ("pread64", "/app/y", 3, 4096, 4),
    ("lseek", "/app/y", 3, 9223372036854775807, -22),  # the largest offset strace prints
    ("close", "/app/y", 3, 0, 0),
]
if got != want:
    print("FAIL: got\n  %s\nwant\n  %s" % ("\n  ".join(map(str, got)), "\n  ".join(map(str, want))))
    sys.exit(1)
PY

# the replay of an empty path fails as the original did, and opens nothing
"$IOREEL" replay "$dir/m.reel" --target "$dir/t" --timing afap -q -o "$dir/r.reel" > /dev/null 2>&1
"$IOREEL" dump "$dir/r.reel" --format jsonl > "$dir/r.jsonl" || fail "dump of the replay"
python3 - "$dir/r.jsonl" <<'PY' || exit 1
import json, sys
empty = [(o["op"], o["ret"]) for o in map(json.loads, open(sys.argv[1])) if o["path"] == ""]
if empty != [("openat", -2), ("newfstatat", -2)]:
    print("FAIL: the replay's ops on the empty path: %r, want them to fail ENOENT" % empty)
    sys.exit(1)
PY
echo PASS
