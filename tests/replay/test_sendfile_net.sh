#!/bin/bash
# A sendfile to a socket moves into /dev/null what the socket took, not what was asked: a
# full non-blocking socket takes part (nginx serving large files: 254 of 4425 sendfiles), the
# next call asks for the rest, and replaying the asked counts read the source 10 % more than
# nginx did. One that failed with the socket's EAGAIN moved nothing and cannot fail so into
# /dev/null: it is non-file I/O, left out by the replay and by the report alike, not an op
# that "succeeded where the original failed". A sendfile that failed on its source (EBADF:
# the source was opened for writing) is still replayed and still fails.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/srv/src flags=O_RDONLY ret=3
100 100 10 20 sendfile fd=3 fd2=5 path=/srv/src mode=6 off=0 len=65536 ret=20000
100 100 20 30 sendfile fd=3 fd2=5 path=/srv/src mode=6 off=20000 len=45536 ret=-11
100 100 30 40 sendfile fd=3 fd2=5 path=/srv/src mode=6 off=20000 len=45536 ret=45536
100 100 40 50 openat path=/srv/w flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=4
100 100 50 60 sendfile fd=4 fd2=5 path=/srv/w mode=6 off=0 len=4096 ret=-9
100 100 60 70 close fd=4 ret=0
100 100 70 80 close fd=3 ret=0
SPEC
for m in original afap; do
	rm -rf "$T/tgt"
	"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing $m -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay $m failed: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		cat "$T/out"
		fail "$m: outcomes differ"
	}
	grep -q "ops not replayed: 0" "$T/out" || fail "$m: ops not replayed: $(cat "$T/out")"
	grep -q "1 non-file skipped" "$T/out" || fail "$m: the EAGAIN sendfile not left out: $(cat "$T/out")"
	got=$("$IOREEL" dump --format jsonl "$T/r.reel" | grep '"op":"sendfile"' |
		sed 's/.*"ret":\(-\?[0-9]*\).*/\1/' | tr '\n' ' ')
	[ "$got" = "20000 45536 -9 " ] || fail "$m: sendfile results '$got', want '20000 45536 -9 '"
done
# the report leaves the EAGAIN one out of the original too: 3 sendfiles, 1 failed, in each
"$IOREEL" report "$T/t.reel" "$T/r.reel" >"$T/rep" 2>&1 || fail "report: $(cat "$T/rep")"
grep -q "1 non-file ops left out" "$T/rep" || fail "report: the EAGAIN sendfile counted: $(cat "$T/rep")"
echo PASS
