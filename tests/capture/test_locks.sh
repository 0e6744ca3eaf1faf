#!/bin/bash
# File locks (format 1.3) as the application asked for them: flock's operation; fcntl's
# command, type and range, the range made absolute (SEEK_CUR from the fd's position, SEEK_END
# from the file's size, a negative length turned forward), a get command's answer in aux. A
# child process then waits ~30 ms in F_SETLKW for the parent's write lock; the replay of the
# recording keeps every outcome and waits there too.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
cat > "$dir/wl.py" <<'PY'
import fcntl, os, struct, sys, time
p = sys.argv[1]
fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
os.write(fd, b"x" * 100)                              # position 100, size 100
fcntl.flock(fd, fcntl.LOCK_EX)
fcntl.flock(fd, fcntl.LOCK_UN)
fcntl.lockf(fd, fcntl.LOCK_SH, 0, -10, os.SEEK_CUR)   # from 90 to the end, F_SETLKW
fl = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_END, -4, 2, 0)
fcntl.fcntl(fd, fcntl.F_GETLK, fl)                     # 96..97: free
fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, 30, -20, 0))
fcntl.lockf(fd, fcntl.LOCK_UN, 0, 0)
fcntl.fcntl(fd, 37, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 0, 0))   # F_OFD_SETLK
fcntl.fcntl(fd, 37, struct.pack("hhqqi4x", fcntl.F_UNLCK, 0, 0, 0, 0))
fcntl.lockf(fd, fcntl.LOCK_EX, 10, 5)                  # 5..14, F_SETLKW
r, w = os.pipe()
if os.fork() == 0:
    os.close(r)
    c = os.open(p, os.O_RDWR)
    try:
        fcntl.lockf(c, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 6)
    except OSError:
        pass                                           # EAGAIN: the parent holds 5..14
    os.write(w, b"1")
    fcntl.lockf(c, fcntl.LOCK_EX, 1, 6)                # waits for the parent's unlock
    os._exit(0)
os.read(r, 1)
time.sleep(0.03)
fcntl.lockf(fd, fcntl.LOCK_UN, 10, 5)
os.wait()
PY
"$IOREEL" record -q -o "$dir/l.reel" -- python3 "$dir/wl.py" "$dir/f" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/l.reel" | python3 -c '
import json, sys
want = [  # op, flags (command), mode (type / operation), offset, len, aux, ret
    ("flock", 0, 2, 0, 0, 0, 0), ("flock", 0, 8, 0, 0, 0, 0),
    ("fcntl_lock", 7, 0, 90, 0, 0, 0),
    ("fcntl_lock", 5, 1, 96, 2, 3, 0),
    ("fcntl_lock", 6, 1, 10, 20, 0, 0),
    ("fcntl_lock", 7, 2, 0, 0, 0, 0),
    ("fcntl_lock", 37, 0, 0, 0, 0, 0), ("fcntl_lock", 37, 2, 0, 0, 0, 0),
    ("fcntl_lock", 7, 1, 5, 10, 0, 0),
    ("fcntl_lock", 6, 1, 6, 1, 0, -11),               # the child, refused
    ("fcntl_lock", 7, 2, 5, 10, 0, 0),                # the parent lets go
    ("fcntl_lock", 7, 1, 6, 1, 0, 0),                 # the child, after its wait
]
got, waited = [], 0
for o in map(json.loads, sys.stdin):
    if o["op"] in ("flock", "fcntl_lock"):
        got.append((o["op"], o["flags"], o["mode"], o["offset"], o["len"], o["aux"], o["ret"]))
        if o["op"] == "fcntl_lock" and o["flags"] == 7 and o["mode"] == 1 and o["offset"] == 6:
            waited = o["end_ns"] - o["start_ns"]
        assert o["path"] and o["path"].endswith("/f"), o
if got != want:
    print("FAIL: lock ops recorded:"); [print(" ", g) for g in got]; sys.exit(1)
if waited < 20_000_000:
    print(f"FAIL: the child waited {waited} ns, want ~30 ms"); sys.exit(1)
' || exit 1
"$IOREEL" replay "$dir/l.reel" --target "$dir/tgt" -o "$dir/r.reel" > "$dir/r.out" 2>&1 ||
	{ echo "FAIL: replay: $(cat "$dir/r.out")"; exit 1; }
grep -q "outcomes differing from the original: 0" "$dir/r.out" ||
	{ echo "FAIL: replay:"; cat "$dir/r.out"; exit 1; }
w=$("$IOREEL" dump --format jsonl "$dir/r.reel" | python3 -c '
import json, sys
for o in map(json.loads, sys.stdin):
    if o["op"] == "fcntl_lock" and o["flags"] == 7 and o["mode"] == 1 and o["offset"] == 6:
        print((o["end_ns"] - o["start_ns"]) // 1000)')
[ -n "$w" ] && [ "$w" -ge 15000 ] || { echo "FAIL: the child's replayed wait: ${w:-none} us, want ~30 ms"; exit 1; }
echo "the child's wait replayed: $w us"
echo PASS
