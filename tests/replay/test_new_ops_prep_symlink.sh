#!/bin/bash
# A symlink the application only read with readlink (it was there before the capture, its
# content is not in the trace) is prepared as a symlink whose stand-in content has the length
# read, pointing nowhere: readlink replays with the original's return value, and the prepared
# set is reused as such. One that was also followed (opened, read) is prepared as the file it
# led to, and its readlink fails, counted; readlink failing with EINVAL says the path was
# there and no symlink: prepared as a file.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 readlink path=/srv/l/only len=4096 ret=17
100 100 10 20 readlink path=/srv/l/file len=4096 ret=-EINVAL
100 100 20 30 readlink path=/srv/l/used len=4096 ret=9
100 100 30 40 openat path=/srv/l/used flags=O_RDONLY ret=3
100 100 40 50 pread64 fd=3 off=0 len=100 ret=100
100 100 50 60 close fd=3 ret=0
100 100 60 70 readlinkat fd=-100 path=/srv/l/only len=4 ret=4
SPEC
for run in 1 2; do
	"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay $run failed: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 1" "$T/out" || {
		cat "$T/out"
		fail "run $run: want 1 outcome differing (readlink of the followed one)"
	}
	grep -q "failed where the original succeeded, e.g." "$T/out" &&
		grep -q "readlink /srv/l/used .*original 9, replay -EINVAL" "$T/out" ||
		fail "run $run: the readlink that fails is not the one named"
	d=$T/tgt/srv/l
	[ -L "$d/only" ] && [ "$(readlink "$d/only" | tr -d '\n' | wc -c)" = 17 ] ||
		fail "run $run: only is not a symlink of 17 bytes"
	[ ! -e "$d/only" ] || fail "run $run: the stand-in content leads somewhere"
	[ -f "$d/file" ] && [ ! -L "$d/file" ] || fail "run $run: file is not a regular file"
	[ -f "$d/used" ] && [ ! -L "$d/used" ] && [ "$(stat -c %s "$d/used")" = 100 ] ||
		fail "run $run: used is not a file of 100 bytes"
	"$IOREEL" dump --format jsonl "$T/r.reel" | grep '"op":"readlink' | grep -c '"ret":\(17\|4\)' |
		grep -qx 2 || fail "run $run: readlinks of only did not return 17 and 4"
done
grep -q "reused" "$T/out" || fail "second run did not reuse the prepared set: $(head -3 "$T/out")"
echo PASS
