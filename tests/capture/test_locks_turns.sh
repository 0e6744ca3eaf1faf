#!/bin/bash
# Two processes take turns on a file: each takes the lock, writes 4 KiB in place, syncs,
# lets go; one with flock, one with fcntl record locks (F_SETLKW). Recorded, then replayed
# in each timing mode: every op ends as in the original (no take refused or given up), and
# the two processes' syncs never overlap, as in the original, where only the locks keep
# them apart (in-place writes order nothing). Replayed by the ioreel of before (which left
# lock ops out), 2.5-3.8 % (flock) and 10-13 % (fcntl) of these syncs overlapped another
# process's, in every mode.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
cat > "$dir/wl.py" <<'PY'
import fcntl, os, sys
p, kind = sys.argv[1], sys.argv[2]
fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
os.pwrite(fd, b"\0" * 65536, 0); os.fsync(fd); os.close(fd)
take = {"flock": lambda fd: fcntl.flock(fd, fcntl.LOCK_EX),
        "fcntl": lambda fd: fcntl.lockf(fd, fcntl.LOCK_EX)}[kind]
give = {"flock": lambda fd: fcntl.flock(fd, fcntl.LOCK_UN),
        "fcntl": lambda fd: fcntl.lockf(fd, fcntl.LOCK_UN)}[kind]
kids = []
for k in range(2):
    pid = os.fork()
    if pid == 0:
        fd = os.open(p, os.O_RDWR)
        buf = bytes([65 + k]) * 4096
        for i in range(80):
            take(fd)
            os.pwrite(fd, buf, (i % 16) * 4096)
            os.fdatasync(fd)
            give(fd)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
PY
overlap() {
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
fs = [(o["start_ns"], o["end_ns"], o["pid"]) for o in map(json.loads, sys.stdin)
      if o["op"] == "fdatasync" and (o["path"] or "").endswith("/f")]
print(len(fs), sum(any(q != p and s2 < e and s < e2 for s2, e2, q in fs) for s, e, p in fs))'
}
for kind in flock fcntl; do
	rm -f "$dir/f"
	"$IOREEL" record -q -o "$dir/$kind.reel" -- python3 "$dir/wl.py" "$dir/f" $kind ||
		{ echo "FAIL: record exited $?"; exit 1; }
	read -r n o < <(overlap "$dir/$kind.reel")
	[ "$n" = 160 ] && [ "$o" = 0 ] || { echo "FAIL: $kind: recorded $n syncs, $o overlapping"; exit 1; }
	for timing in original think afap; do
		rm -rf "$dir/tgt"
		timeout -s KILL 60 "$IOREEL" replay "$dir/$kind.reel" --target "$dir/tgt" --timing $timing \
			-o "$dir/r.reel" > "$dir/r.out" 2>&1 || { echo "FAIL: replay: $(cat "$dir/r.out")"; exit 1; }
		grep -q "outcomes differing from the original: 0" "$dir/r.out" &&
			! grep -q "lock requests waited past" "$dir/r.out" ||
			{ echo "FAIL: $kind, $timing:"; cat "$dir/r.out"; exit 1; }
		read -r n o < <(overlap "$dir/r.reel")
		echo "$kind, $timing: $o of $n syncs overlap another process's"
		[ "$n" = 160 ] && [ "$o" = 0 ] || { echo "FAIL: $kind, $timing: $o of $n syncs overlap"; exit 1; }
	done
done
echo PASS
