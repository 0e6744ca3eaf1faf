#!/bin/bash
# The page cache a replay starts with is said, and blamed where it made reads faster. The
# original's 300 4 KiB preads of a 1.2 MB file took 100 us each (a device's time); preparing
# the file on a disk leaves it in the page cache, so a replay without --cold reads it from
# memory: its summary says 100% of the set resident, and the report says the speed-up is the
# cache's. With --cold the summary says (about) 0% and the report does not blame the cache;
# on tmpfs (memory by nature) neither says a word.
source "$(dirname "$0")/lib.sh"

[ "$(stat -f -c %T /var/tmp)" != tmpfs ] || { echo "SKIP: /var/tmp is tmpfs here"; exit 77; }
python3 - >"$T/spec" <<'PY'
print("100 100 100 110 openat fd=-100 path=/d/f flags=O_RDONLY ret=3")
t = 1000  # us
for i in range(300):
    print("100 100 %d %d pread64 fd=3 off=%d len=4096 ret=4096" % (t, t + 100, i * 4096))
    t += 101
print("100 100 %d %d close fd=3 ret=0" % (t, t + 10))
PY
mk t <"$T/spec"

# run NAME TARGET [ARGS...]: replays afap into $T/NAME.reel, report into $T/NAME.rep
run() {
	local name=$1 tgt=$2
	shift 2
	"$IOREEL" replay "$T/t.reel" --target "$tgt" --timing afap -o "$T/$name.reel" "$@" \
		>"$T/$name.out" 2>&1 || fail "$name: replay: $(cat "$T/$name.out")"
	"$IOREEL" report "$T/t.reel" "$T/$name.reel" >"$T/$name.rep" 2>&1 ||
		fail "$name: report: $(cat "$T/$name.rep")"
}

run warm "$T/tgt"
grep -q "page cache at start: 100% of the file set's 1.2 MiB on disk-backed targets" \
	"$T/warm.out" || fail "warm: summary: $(grep -i 'cache\|file set' "$T/warm.out")"
grep -q "was in the page cache when the replay began" "$T/warm.rep" ||
	fail "warm: no verdict on the cache: $(sed -n '/verdict/,$p' "$T/warm.rep")"
grep "page cache when" "$T/warm.rep"
"$IOREEL" info "$T/warm.reel" | grep -q "replay.cache.resident_bytes 1228800" ||
	fail "warm: meta: $("$IOREEL" info "$T/warm.reel" | grep cache)"

run cold "$T/tgt" --cold
pct=$(sed -n 's/.*page cache at start: \([0-9]*\)%.*/\1/p' "$T/cold.out")
[ -n "$pct" ] && [ "$pct" -le 10 ] || fail "cold: summary: $(grep -i 'cache' "$T/cold.out")"
! grep -q "was in the page cache when" "$T/cold.rep" || fail "cold: the cache blamed after --cold"
echo "cold: $pct% resident at start"

# a file the trace opened only with O_DIRECT is not the cache's to serve: left out of the
# set measured (a fio direct=1 randread's 256 MiB read "100% in the page cache ... --cold
# drops it"); the buffered one beside it is counted, 100 reads of 4 KiB
python3 - >"$T/spec" <<'PY'
print("100 100 100 110 openat fd=-100 path=/d/f flags=O_RDONLY|O_DIRECT ret=3")
print("100 100 120 130 openat fd=-100 path=/d/g flags=O_RDONLY ret=4")
t = 1000  # us
for i in range(300):
    print("100 100 %d %d pread64 fd=3 off=%d len=4096 ret=4096" % (t, t + 100, i * 4096))
    print("100 100 %d %d pread64 fd=4 off=%d len=4096 ret=4096" % (t + 100, t + 101, (i % 100) * 4096))
    t += 102
PY
mk t <"$T/spec"
run direct "$T/tgtd"
"$IOREEL" info "$T/direct.reel" | grep -q "replay.cache.disk_bytes *409600$" ||
	fail "O_DIRECT: measured $("$IOREEL" info "$T/direct.reel" | grep cache.disk), not /d/g's 409600 bytes alone"

if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	shm=$(mktemp -d /dev/shm/ioreel-replay-test.XXXXXX)
	trap '[ -n "${KEEP:-}" ] || rm -rf "$T" "$shm"' EXIT
	run ram "$shm/tgt"
	! grep -q "page cache at start" "$T/ram.out" || fail "tmpfs: summary speaks of the cache"
	! grep -q "was in the page cache when" "$T/ram.rep" || fail "tmpfs: the cache blamed"
fi
echo PASS
