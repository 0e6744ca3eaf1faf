#!/bin/bash
# report --json: a copy's bytes count as read always, and as written when they land in a file
# (copy_file_range; sendfile to a regular file), as "ioreel info" counts them; a sendfile to a
# socket writes no file. Copies are classed with the reads, and were never counted written.
# usage: report_copy_bytes_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup copy "$@"

"$MKTRACE" "$T/t.reel" <<'SPEC' || exit 1
100 100 0 10 openat path=/srv/src flags=O_RDONLY ret=3
100 100 10 20 openat path=/srv/dst flags=O_RDWR|O_CREAT mode=0644 ret=4
100 100 20 30 pread64 fd=3 off=0 len=200 ret=200
100 100 30 40 pwrite64 fd=4 off=0 len=100 ret=100
100 100 40 50 copy_file_range fd=3 fd2=4 off=0 len=4096 aux=100 ret=4096
100 100 50 60 sendfile fd=3 fd2=4 mode=1 off=4096 len=1000 aux=4196 ret=1000
100 100 60 70 sendfile fd=3 fd2=9 mode=6 off=5096 len=500 ret=500
100 100 70 80 close fd=4 ret=0
100 100 80 90 close fd=3 ret=0
SPEC
"$IOREEL" report --json "$T/t.reel" >"$T/r.json" || exit 1
python3 - "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
want_r, want_w = 200 + 4096 + 1000 + 500, 100 + 4096 + 1000
ok = r["bytes_read"] == want_r and r["bytes_written"] == want_w
print("%s: bytes_read %d (want %d), bytes_written %d (want %d)" %
      ("PASS" if ok else "FAIL", r["bytes_read"], want_r, r["bytes_written"], want_w))
sys.exit(0 if ok else 1)
PY
