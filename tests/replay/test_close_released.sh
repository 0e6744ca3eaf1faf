#!/bin/bash
# A close that entered before another thread's open returned its fd number again closed
# the number's previous file. Redis's bio thread closes an unlinked AOF file for tens of ms
# (freeing its blocks) while the main thread opens, fsyncs and closes its directory on the
# same number; the trace, in exit order, has the slow close last. The replay must close the
# AOF file with that close, timed (it closed it untimed when the open reused the number, and
# then skipped the close as one of an fd from before the capture). The same for a dup that
# reuses the number (/d/b).
source "$(dirname "$0")/lib.sh"

{
	echo "100 100 0 10 openat path=/d/a flags=O_WRONLY|O_CREAT mode=0644 ret=5"
	echo "100 100 20 30 pwrite64 fd=5 off=0 len=1000000 ret=1000000"
	echo "100 100 40 50 unlink path=/d/a ret=0"
	echo "100 100 200 210 openat path=/d flags=O_RDONLY|O_DIRECTORY ret=5 kind=dir"
	echo "100 100 220 230 fdatasync fd=5 ret=0"
	echo "100 100 240 250 close fd=5 ret=0"
	echo "100 101 60 5000 close fd=5 ret=0 path=/d/a"
	echo "100 100 6000 6010 openat path=/d/b flags=O_WRONLY|O_CREAT mode=0644 ret=6"
	echo "100 100 6020 6030 openat path=/d/c flags=O_WRONLY|O_CREAT mode=0644 ret=7"
	echo "100 100 6100 6110 dup fd=7 ret=6"
	echo "100 100 6120 6130 pwrite64 fd=6 off=0 len=10 ret=10 path=/d/c"
	echo "100 100 6140 6150 close fd=6 ret=0 path=/d/c"
	echo "100 100 6160 6170 close fd=7 ret=0 path=/d/c"
	echo "100 101 6050 9000 close fd=6 ret=0 path=/d/b"
} | mk t
for mode in original think afap; do
	replay_as_traced $mode "a close of a number's previous file"
	grep -q "closes of fds opened before the capture" "$T/out" && {
		cat "$T/out"
		fail "timing $mode: a close of a file opened in the trace was not replayed"
	}
	grep -q "ops: 14 in trace, 14 replayed" "$T/out" || fail "timing $mode: $(cat "$T/out")"
	"$IOREEL" dump "$T/r.reel" --format csv | python3 -c '
import csv, sys
ops = list(csv.DictReader(sys.stdin))
slow = [o for o in ops if o["op"] == "close" and o["tid"] == "101"]
assert len(slow) == 2, slow
for o, want in zip(slow, ("/d/a", "/d/b")):
	if o["ret"] != "0" or not o["path"].endswith(want):
		sys.exit("close by thread 101: %s" % o)
' || fail "timing $mode: the slow closes"
	[ -f "$T/tgt/d/b" ] && [ -f "$T/tgt/d/c" ] && [ ! -e "$T/tgt/d/a" ] || fail "timing $mode: files"
done
echo PASS
