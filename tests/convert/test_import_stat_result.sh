#!/bin/bash
# ioreel import strace: the stat family keeps what it found, as a recording does (FORMAT.md,
# "The stat family"): subop = the type bits of st_mode= or stx_mode=, aux = st_size= or
# stx_size= + 1; a failed call, or a log that does not show the struct, leaves both 0.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/a.strace" <<'LOG'
100 1700000000.000000 newfstatat(AT_FDCWD</w>, "d", {st_mode=S_IFDIR|0755, st_size=40, ...}, 0) = 0 <0.000008>
100 1700000000.001000 newfstatat(AT_FDCWD</w>, "l", {st_mode=S_IFLNK|0777, st_size=1, ...}, AT_SYMLINK_NOFOLLOW) = 0 <0.000006>
100 1700000000.002000 statx(AT_FDCWD</w>, "f", AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS, {stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_attributes=0, stx_mode=S_IFREG|0644, stx_size=12345, ...}) = 0 <0.000010>
100 1700000000.003000 stat("/w/g", {st_mode=S_IFREG|0600, st_size=7, ...}) = 0 <0.000010>
100 1700000000.004000 openat(AT_FDCWD</w>, "/w/f", O_RDONLY) = 3</w/f> <0.000010>
100 1700000000.005000 fstat(3</w/f>, {st_mode=S_IFREG|0644, st_size=12345, ...}) = 0 <0.000006>
100 1700000000.006000 newfstatat(3</w/f>, "", {st_mode=S_IFREG|0644, st_size=12345, ...}, AT_EMPTY_PATH) = 0 <0.000006>
100 1700000000.007000 newfstatat(AT_FDCWD</w>, "nope", 0x7ffc0, 0) = -1 ENOENT (No such file or directory) <0.000006>
100 1700000000.008000 stat("/w/h", 0x7ffc0) = 0 <0.000010>
LOG
"$IOREEL" import strace "$dir/a.strace" -o "$dir/a.reel" 2> "$dir/err" ||
	{ echo "FAIL: import: $(cat "$dir/err")"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/a.reel" > "$dir/a.jsonl" || { echo "FAIL: dump"; exit 1; }
python3 - "$dir/a.jsonl" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
got = [(o["op"], o["path"], o["subop"], o["aux"]) for o in ops if "stat" in o["op"]]
want = [("newfstatat", "/w/d", 4, 41), ("newfstatat", "/w/l", 10, 2),
        ("statx", "/w/f", 8, 12346), ("stat", "/w/g", 8, 8), ("fstat", "/w/f", 8, 12346),
        ("fstat", "/w/f", 8, 12346), ("newfstatat", "/w/nope", 0, 0), ("stat", "/w/h", 0, 0)]
if got != want:
    sys.exit("FAIL: stat results\n got  %r\n want %r" % (got, want))
PY
echo PASS
