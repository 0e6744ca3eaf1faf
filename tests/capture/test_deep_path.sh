#!/bin/bash
# Paths longer than PATH_MAX once made absolute (24 nested 250-byte directories, reached by
# dirfds and fchdir). The capture kept the relative tail as the app wrote it once the join
# with the directory's path did not fit, and the fd table then held that tail, so the ops of
# the deep files named paths elsewhere and the replay worked there, silently. Now such an
# op has no path, and so have the ops on its fd and on the files relative to it; they are
# counted (meta capture.paths_too_long, record's summary, info), and a replay says it cannot
# replay them.
source "$(dirname "$0")/lib.sh"
DEEP=$3
A=$dir/app
mkdir "$A" || exit 1
"$IOREEL" record -o "$dir/t.reel" -- "$DEEP" "$A" 2> "$dir/rec.err" ||
	{ echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
# every path of the trace is absolute, or none: never a tail of one
grep -E "^op=.* path2?=[^/-]" "$dir/ops.txt" > "$dir/rel.txt"
[ -s "$dir/rel.txt" ] && { echo "FAIL: relative paths in the trace:"; cut -c1-200 "$dir/rel.txt"; fail=1; }
# too long: the mkdirat and openat of each level at or past 4096 bytes, leaf's and leaf2's open
want=2
for i in $(seq 1 24); do
	[ $((${#A} + i * 251)) -ge 4096 ] && want=$((want + 2))
done
grep -q "^meta capture.paths_too_long=$want$" "$dir/ops.txt" ||
	{ echo "FAIL: capture.paths_too_long is not $want:"; grep paths_too_long "$dir/ops.txt"; fail=1; }
grep -q "^  $want paths longer than PATH_MAX" "$dir/rec.err" ||
	{ echo "FAIL: record's summary does not say so:"; cat "$dir/rec.err"; fail=1; }
"$IOREEL" info "$dir/t.reel" | grep -Eq "^ *capture.paths_too_long +$want$" ||
	{ echo "FAIL: info does not show capture.paths_too_long $want"; fail=1; }
# the leaf's write and pread, and leaf2's write, have no path; ok has its own
for op in "write .* path=- .* len=5 ret=5 " "pread64 .* path=- .* len=5 ret=5 " \
	"write .* path=- .* len=1 ret=1 " "write .* path=$A/ok .* len=1 ret=1 "; do
	grep -Eq "^op=$op" "$dir/ops.txt" || { echo "FAIL: no op like '$op'"; fail=1; }
done

# the replay makes neither leaf anywhere, and says why it leaves their ops out
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" > "$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
found=$(find "$dir/tgt" -name 'leaf*' | head -3)
[ -z "$found" ] || { echo "FAIL: the replay made leaf files elsewhere: $found"; fail=1; }
[ -e "$dir/tgt$A/ok" ] || { echo "FAIL: the replay did not make ok"; fail=1; }
grep -q "path op without a path (the recording could not know it: longer than PATH_MAX" \
	"$dir/out" || { echo "FAIL: the replay does not say why:"; cat "$dir/out"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
