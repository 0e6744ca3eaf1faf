#!/bin/bash
# An op that waits for more than 64 other threads (here an rmdir after 70 threads each made
# and removed a file in the directory) waits for all of them. The dispatcher gathered an op's
# dependencies in a fixed array of 64 and dropped the rest: the rmdir ran while the last
# threads to use the directory (busy with other ops first) had not made their files yet,
# and their creates failed with ENOENT. Every mode must have the rmdir after the last unlink
# and nothing differing from the original.
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
N = 70
# all threads alive from the start, so that each has a worker of its own
for i in range(N):
    print(f"100 {100 + i} {i} {i} stat path=/x/y ret=-ENOENT")
# the last five are busy first: theirs are the last uses of /d before the rmdir
t = 100
for k in range(2000):
    for i in range(N - 5, N):
        print(f"100 {100 + i} {t} {t} stat path=/x/y ret=-ENOENT")
    t += 1
for i in range(N):
    at = t + 10 * i
    print(f"100 {100 + i} {at} {at + 1} openat fd=-100 path=/d/f{i} "
          f"flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret={10 + i}")
    print(f"100 {100 + i} {at + 2} {at + 3} close fd={10 + i} ret=0")
    print(f"100 {100 + i} {at + 4} {at + 5} unlink path=/d/f{i} ret=0")
t += 10 * N + 100
print(f"100 100 {t} {t + 10} rmdir path=/d ret=0")
# the threads live on past the rmdir: their workers are not handed on to other threads
for i in range(N):
    print(f"100 {100 + i} {t + 100 + i} {t + 101 + i} stat path=/x/y ret=-ENOENT")
PY
mk t <"$T/spec"
for mode in afap think original; do
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $mode \
		--speed 1000 -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay $mode (rc $?, 137: hung): $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		cat "$T/out"
		fail "timing $mode: an op's outcome differs"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	# the rmdir starts after every unlink has ended
	"$IOREEL" dump --format csv "$T/r.reel" | awk -F, '
		$1 == "unlink" { n++; if ($5 > last) last = $5 }
		$1 == "rmdir" { rm = $4 }
		END { if (n != 70 || !rm || rm < last) { print n " unlinks, the last ended at " last ", rmdir at " rm; exit 1 } }' ||
		fail "timing $mode: rmdir not ordered after the unlinks"
done
echo PASS
