#!/bin/bash
# flock(1): `flock FILE -c CMD` takes the lock, forks the command (which inherits the locked
# fd) and exits when it is done, without an unlock: the lock goes when the last of the two
# processes exits. Three queued on one file, and a `flock -n` refused while the first held
# it. Recorded with the fork and exit records (format 1.4), replayed: every op ends as in
# the original in every timing mode (the -n refused too), and with the original timing the
# queued waits are the original's (the locks are held until the exits). Replayed without
# those records (format 1.3: locks released after each process's last op, inherited fds
# opened again), the waits were at most 14.5 ms where the original's were 35 and 69 ms, and
# the -n got the lock.
source "$(dirname "$0")/lib.sh"
command -v flock > /dev/null || { echo "SKIP: no flock(1)"; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
F="$dir/lockfile"
"$IOREEL" record -q -o "$dir/t.reel" -- sh -c "
flock '$F' -c 'sleep 0.05' & flock '$F' -c 'sleep 0.05' & flock '$F' -c 'sleep 0.05' &
sleep 0.02; flock -n '$F' true && echo got > '$dir/nb' || echo refused > '$dir/nb'; wait" ||
	{ echo "FAIL: record exited $?"; exit 1; }
[ "$(cat "$dir/nb")" = refused ] || { echo "SKIP: the flock -n was not refused in the original (a slow start)"; exit 77; }
# the waits of the blocking flock requests on the lock file, in ms, sorted; then the
# non-blocking ones' results
waits() {
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
w, nb = [], []
for o in map(json.loads, sys.stdin):
    if o["op"] != "flock" or not (o["path"] or "").endswith("/lockfile"):
        continue
    if o["mode"] == 2:
        w.append((o["end_ns"] - o["start_ns"]) / 1e6)
    elif o["mode"] & 4:
        nb.append(o["ret"])
print(" ".join("%.1f" % x for x in sorted(w)), "|", " ".join(map(str, nb)))'
}
read -r rec < <(waits "$dir/t.reel")
echo "recorded waits (ms) | non-blocking results: $rec"
n=$("$IOREEL" dump --format jsonl "$dir/t.reel" | grep -c '"op":"exit"')
[ "$n" -ge 7 ] || { echo "FAIL: $n exit records, want at least 7 (sh, 3 flock, 3 sleep)"; exit 1; }
for timing in original think afap; do
	rm -rf "$dir/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" --timing $timing \
		-o "$dir/r.reel" > "$dir/r.out" 2>&1 || { echo "FAIL: replay: $(cat "$dir/r.out")"; exit 1; }
	grep -q "outcomes differing from the original: 0" "$dir/r.out" &&
		! grep -q "lock requests waited past" "$dir/r.out" ||
		{ echo "FAIL: $timing:"; cat "$dir/r.out"; exit 1; }
	read -r got < <(waits "$dir/r.reel")
	echo "$timing: replayed waits (ms) | non-blocking results: $got"
	[ "$timing" = original ] || continue
	# each queued wait within 20 ms of the original's (the VM's sleeps wake late)
	python3 - "$rec" "$got" <<'PY' || exit 1
import sys
a = [float(x) for x in sys.argv[1].split("|")[0].split()]
b = [float(x) for x in sys.argv[2].split("|")[0].split()]
if len(a) != len(b) or any(abs(x - y) > 20 for x, y in zip(a, b)):
    sys.exit("FAIL: waits %s replayed as %s" % (a, b))
PY
done
echo PASS
