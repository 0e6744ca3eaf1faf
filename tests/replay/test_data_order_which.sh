#!/bin/bash
# Which reads wait for another thread's write, shown by the original timing: every read here
# is due at 1 ms, every write at 300 ms, and each write comes first in the trace. A read of
# bytes that were there before the trace (within the size the file is prepared with) does not
# wait, though a write made that file longer; a read of bytes a write made waits for it,
# as does one of a file renamed after it was written, and of a file an ftruncate made longer.
source "$(dirname "$0")/lib.sh"

SHM=$(mktemp -d /dev/shm/ioreel-xdata-test.XXXXXX) || exit 77
trap 'rm -rf "$SHM"; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
mk t <<'EOF'
100 100 100 101 openat path=/d/new flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
100 100 110 111 openat path=/d/old flags=O_RDWR ret=4
100 100 120 121 openat path=/d/tmp flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=5
100 100 130 131 openat path=/d/sized flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=6
200 200 200 201 openat path=/d/old flags=O_RDONLY ret=3
300 300 210 211 openat path=/d/new flags=O_RDONLY ret=3
500 500 220 221 openat path=/d/sized flags=O_RDONLY ret=3
100 100 300000 300010 pwrite64 fd=3 path=/d/new off=0 len=4096 ret=4096
100 100 300020 300030 pwrite64 fd=4 path=/d/old off=4096 len=4096 ret=4096
100 100 300040 300050 pwrite64 fd=5 path=/d/tmp off=0 len=4096 ret=4096
100 100 300060 300070 ftruncate fd=6 path=/d/sized len=8192 ret=0
# a rename the dispatcher reads after the write, due before it
400 400 400 410 rename path=/d/tmp path2=/d/final ret=0
400 400 500 510 openat path=/d/final flags=O_RDONLY ret=3
200 200 1000 300100 pread64 fd=3 path=/d/old off=0 len=4096 ret=4096
300 300 1000 300200 pread64 fd=3 path=/d/new off=0 len=4096 ret=4096
400 400 1000 300300 pread64 fd=3 path=/d/final off=0 len=4096 ret=4096
500 500 1000 300400 pread64 fd=3 path=/d/sized off=0 len=8192 ret=8192
100 100 300500 300510 close fd=3 ret=0
100 100 300520 300530 close fd=4 ret=0
100 100 300540 300550 close fd=5 ret=0
100 100 300560 300570 close fd=6 ret=0
EOF
"$IOREEL" replay "$T/t.reel" --target "$SHM/tgt" --timing original -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	grep -A5 "outcomes differing" "$T/out"
	fail "reads came out short"
}
"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
ops = [json.loads(l) for l in sys.stdin]
def one(pid, op, path):
    return next(o for o in ops if o["pid"] == pid and o["op"] == op and o["path"] == path)
ok = True
old = one(200, "pread64", "/d/old")
if old["start_ns"] > 100e6:
    print("the read within the prepared size waited:", old["start_ns"], "ns")
    ok = False
for pid, path, wop, wpath in ((300, "/d/new", "pwrite64", "/d/new"),
                              (400, "/d/final", "pwrite64", "/d/tmp"),
                              (500, "/d/sized", "ftruncate", "/d/sized")):
    r, w = one(pid, "pread64", path), one(100, wop, wpath)
    if r["start_ns"] < w["end_ns"]:
        print("the read of %s started at %d ns, before the end of %s %s at %d ns"
              % (path, r["start_ns"], wop, wpath, w["end_ns"]))
        ok = False
sys.exit(0 if ok else 1)
' || fail "reads ordered wrong"
echo PASS
