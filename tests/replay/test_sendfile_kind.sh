#!/bin/bash
# A sendfile goes into a file of the replay only when the trace says its destination was a
# regular file (mode 1, reg; FORMAT.md: only then is aux the position written). One whose
# kind the recorder could not tell (mode 0) goes into /dev/null, as a socket's does: its aux
# is no position, and writing the file at offset 0 would overwrite what the app wrote there.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/srv/src flags=O_RDONLY ret=3
100 100 10 20 pread64 fd=3 off=0 len=8192 ret=8192
100 100 20 30 openat path=/srv/dst flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=4
100 100 30 40 sendfile fd=3 fd2=4 path=/srv/src mode=0 off=0 len=4096 ret=4096
100 100 40 50 sendfile fd=3 fd2=4 path=/srv/src mode=6 off=4096 len=4096 ret=4096
100 100 50 60 close fd=4 ret=0
100 100 60 70 close fd=3 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay failed: $(cat "$T/out")"
sz=$(stat -c %s "$T/tgt/srv/dst")
[ "$sz" = 0 ] || fail "dst has $sz bytes: a sendfile to a destination not known as a file wrote it"
grep -q "outcomes differing from the original: 0" "$T/out" || {
	cat "$T/out"
	fail "outcomes differ"
}
n=$("$IOREEL" dump --format jsonl "$T/r.reel" | grep '"op":"sendfile"' | grep -c '"ret":4096')
[ "$n" = 2 ] || fail "want 2 sendfiles of 4096 bytes, got $n"
echo PASS
