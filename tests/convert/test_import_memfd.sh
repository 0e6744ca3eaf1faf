#!/bin/bash
# ioreel import strace of a memfd: strace -y names it "/memfd:NAME (deleted)", a regular
# file's inode of no file system. Its writes, and its reads through "/proc/self/fd/N"
# (systemd opens one again read-only so), were imported as file I/O on "/memfd:NAME", which
# a replay made a file of; they are non-file ops now, left out and counted, as the recorder
# leaves them.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/t.strace" <<'LOG'
5000  1700000000.000000 memfd_create("cfg", MFD_CLOEXEC) = 3</memfd:cfg (deleted)> <0.000010>
5000  1700000000.001000 write(3</memfd:cfg (deleted)>, "x"..., 300) = 300 <0.000010>
5000  1700000000.002000 openat(AT_FDCWD</w>, "/proc/self/fd/3", O_RDONLY|O_CLOEXEC) = 4</memfd:cfg (deleted)> <0.000010>
5000  1700000000.003000 read(4</memfd:cfg (deleted)>, "x"..., 4096) = 300 <0.000010>
5000  1700000000.004000 close(4</memfd:cfg (deleted)>) = 0 <0.000010>
5000  1700000000.005000 openat(AT_FDCWD</w>, "f", O_WRONLY|O_CREAT, 0644) = 5</w/f> <0.000010>
5000  1700000000.006000 write(5</w/f>, "y"..., 100) = 100 <0.000010>
5000  1700000000.007000 close(5</w/f>) = 0 <0.000010>
LOG
"$IOREEL" import strace "$dir/t.strace" -o "$dir/t.reel" 2> "$dir/t.err" ||
	{ echo "FAIL: import exited $?"; cat "$dir/t.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" > "$dir/t.jsonl" || { echo "FAIL: dump"; exit 1; }
python3 - "$dir/t.jsonl" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
got = [(o["op"], o["path"]) for o in ops]
want = [("openat", "/w/f"), ("write", "/w/f"), ("close", "/w/f")]
if got != want:
    print("FAIL: ops\n  got  %s\n  want %s" % (got, want))
    sys.exit(1)
PY
"$IOREEL" info "$dir/t.reel" | grep -Eq "^ *nonfile_ops +4$" ||
	{ echo "FAIL: want the memfd's 4 ops counted non-file: $("$IOREEL" info "$dir/t.reel" | grep nonfile)"; exit 1; }
echo PASS
