#!/bin/bash
# The stat family records what it found (FORMAT.md, "The stat family"): subop = the mode's
# file type bits (S_IFMT >> 12), aux = the size + 1, read from the caller's buffer at exit,
# for each way in: stat, lstat and fstat (raw syscalls, struct stat), newfstatat (glibc's
# stat), statx (coreutils' stat). A failed call records neither.
source "$(dirname "$0")/lib.sh"
mkdir "$dir/app" "$dir/app/d" || exit 1
head -c 12345 /dev/zero > "$dir/app/f" || exit 1
ln -s f "$dir/app/l" || exit 1
"$IOREEL" record -q -o "$dir/t.reel" -- sh -c '
python3 - "$1" <<PY
import ctypes, os, sys
app = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(256)
libc.syscall(4, (app + "/f").encode(), buf)       # stat
libc.syscall(6, (app + "/l").encode(), buf)       # lstat
fd = os.open(app + "/f", os.O_RDONLY)
libc.syscall(5, fd, buf)                           # fstat
os.stat(app + "/d")                                # newfstatat
try:
    os.stat(app + "/nope")
except FileNotFoundError:
    pass
PY
stat "$1/d" "$1/f" >/dev/null' sh "$dir/app" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" > "$dir/ops.jsonl" ||
	{ echo "FAIL: dump exited $?"; exit 1; }
python3 - "$dir/ops.jsonl" "$dir/app" <<'PY' || exit 1
import json, sys
app = sys.argv[2]
ops = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
seen = {}
for o in ops:
	if o["op"] in ("stat", "lstat", "fstat", "newfstatat", "statx") and \
			(o.get("path") or "").startswith(app + "/"):
		seen.setdefault((o["op"], o["path"][len(app) + 1:]), []).append((o["subop"], o["aux"], o["ret"]))
want = {
	("stat", "f"): (8, 12346), ("lstat", "l"): (10, 2), ("fstat", "f"): (8, 12346),
	("newfstatat", "d"): (4, None), ("statx", "d"): (4, None), ("statx", "f"): (8, 12346),
	("newfstatat", "nope"): (0, 0),
}
bad = []
for k, (kind, aux) in want.items():
	got = seen.get(k)
	if not got:
		bad.append("no %s of %s in the trace" % k)
		continue
	s, a, r = got[0]
	if s != kind or (aux is not None and a != aux) or (aux is None and a < 1):
		bad.append("%s %s: subop %r aux %r (ret %r), want %r %r" % (k + (s, a, r, kind, aux)))
if bad:
	sys.exit("FAIL: " + "; ".join(bad) + "\nseen: %r" % seen)
PY
echo "PASS"
