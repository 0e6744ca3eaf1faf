#!/bin/bash
# Positioned writes that append: pwritev2(fd, iov, 1, 100, RWF_APPEND) on an 8192-byte file
# was recorded at offset 100, where FORMAT.md says the offset is the position used, and the
# write landed at 8192; so was a pwrite through an O_APPEND fd (Linux appends it). Now both are
# recorded where they landed (the file's size at their exit less what they wrote), and a
# pwritev2 with RWF_NOAPPEND on an O_APPEND fd at its offset; the replay's files end as long
# as the original's.
source "$(dirname "$0")/lib.sh"
PA=$3
A=$dir/app
mkdir "$A" || exit 1
noappend=$("$PA" "$A") || { echo "FAIL: pwrite_append failed unrecorded"; exit 1; }
rm -f "$A"/*
"$IOREEL" record -q -o "$dir/t.reel" -- "$PA" "$A" > /dev/null ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
for op in "pwritev2 .* path=$A/a .* flags=0x10 .* offset=8192 len=512 ret=512 " \
	"pwrite64 .* path=$A/b .* offset=4096 len=100 ret=100 "; do
	grep -Eq "^op=$op" "$dir/ops.txt" ||
		{ echo "FAIL: no op like '$op':"; grep -E "^op=pwrite" "$dir/ops.txt"; fail=1; }
done
if [ "$noappend" = noappend ]; then
	grep -Eq "^op=pwritev2 .* path=$A/b .* flags=0x20 .* offset=20 len=50 ret=50 " "$dir/ops.txt" ||
		{ echo "FAIL: the RWF_NOAPPEND pwritev2 is not at its offset"; fail=1; }
else
	echo "note: no RWF_NOAPPEND in this kernel: not checked"
fi
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" > "$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
grep -q "outcomes differing from the original: 0$" "$dir/out" ||
	{ echo "FAIL: the replay differs:"; cat "$dir/out"; fail=1; }
for f in a:8704 b:4196; do
	size=$(stat -c %s "$dir/tgt$A/${f%:*}" 2> /dev/null)
	[ "$size" = "${f#*:}" ] || { echo "FAIL: the replay's ${f%:*} is '$size' bytes long, want ${f#*:}"; fail=1; }
done
[ $fail = 0 ] && echo "PASS"
exit $fail
