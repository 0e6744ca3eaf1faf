#!/bin/bash
# The stand-in content of a symlink only readlink'd (its content not in the trace) can never
# be followed beneath the target, whatever its length: it is absolute ("/" and a filler, cut
# to the length read), which RESOLVE_BENEATH refuses. A relative one of 1 to 3 bytes ("i",
# "io", "ior") named a real sibling: opening the dangling link then opened the sibling, and
# truncate cut it. Now following it is refused (counted), as an absolute link is.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 readlink path=/srv/l/x len=4096 ret=2
100 100 10 20 readlink path=/srv/l/y len=4096 ret=1
100 100 20 30 openat path=/srv/l/io flags=O_RDONLY ret=3
100 100 30 40 pread64 fd=3 off=0 len=100 ret=100
100 100 40 50 close fd=3 ret=0
100 100 50 60 openat path=/srv/l/x flags=O_RDONLY ret=-ENOENT
100 100 60 70 truncate path=/srv/l/x len=0 ret=-ENOENT
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
d=$T/tgt/srv/l
[ "$(stat -c %s "$d/io")" = 100 ] || fail "io truncated through x"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "outcomes differ"
}
n=$("$IOREEL" dump --format jsonl "$T/r.reel" | grep '"path":"/srv/l/x"' | grep -v '"op":"readlink' |
	grep -c '"ret":[0-9]')
[ "$n" = 0 ] || fail "$n ops through x succeeded: the stand-in led to a sibling"
grep -q "openat /srv/l/x .*refused" "$T/out" && grep -q "truncate /srv/l/x .*refused" "$T/out" ||
	fail "following x not refused"
for l in x:2 y:1; do
	c=$(readlink "$d/${l%:*}")
	[ -L "$d/${l%:*}" ] && [ ${#c} = "${l#*:}" ] && [ "${c:0:1}" = / ] ||
		fail "${l%:*}: stand-in '$c' is not absolute of ${l#*:} bytes"
done
echo PASS
