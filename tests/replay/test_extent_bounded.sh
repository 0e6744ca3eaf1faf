#!/bin/bash
# The dispatcher's per-file writer lists (replay_extent.c: what a later cut of the file
# waits for) stay bounded on a trace of many threads writing many files that nothing cuts:
# entries whose write has been issued are dropped, so what is kept follows what was
# dispatched and not yet done (here, segments of 2048 ops), not threads x files. They used
# to stay until a cut of their file: 16 threads x 3000 files kept 48000. IOREEL_TEST_EXTENT
# makes the replay say the most it kept at once.
source "$(dirname "$0")/lib.sh"

# mkfiles FILES: thread 100 creates FILES files, then 16 threads write each of them once
mkfiles() {
	python3 - "$1" <<'EOF'
import sys
files, threads = int(sys.argv[1]), 16
print("100 100 0 1 mkdir path=/d mode=0755 ret=0")
t = 10
for f in range(files):
    print("100 100 %d %d openat path=/d/f%d flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=%d"
          % (t, t + 1, f, 3 + f))
    t += 2
for f in range(files):
    for th in range(threads):
        print("100 %d %d %d pwrite64 fd=%d path=/d/f%d off=%d len=512 ret=512"
              % (100 + th, t, t + 1, 3 + f, f, th * 512))
        t += 1
EOF
}

for files in 1500 3000; do
	mkfiles $files | mk t
	rm -rf "$T/tgt"
	IOREEL_TEST_EXTENT=1 IOREEL_TEST_SEGMENT=2048 timeout -s KILL 120 "$IOREEL" replay \
		"$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "$files files: status $?: $(tail -5 "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		grep -A8 "outcomes differing" "$T/out"
		fail "$files files: outcomes differ"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	n=$(sed -n 's/^ioreel: replay: test: writers entries at most \([0-9]*\),.*/\1/p' "$T/out")
	[ -n "$n" ] || fail "$files files: no writers count: $(grep test: "$T/out")"
	echo "$files files x 16 threads: at most $n writers entries"
	# a sweep every max(4096, what the last left) writes; what it leaves is at most the
	# writes of the segment under way and the one before
	[ "$n" -le 12288 ] || fail "$files files x 16 threads: $n writers entries kept, want <= 12288"
done
exit 0
