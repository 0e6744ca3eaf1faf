#!/bin/bash
# ioreel info on the crafted trace of mktrace.c: every number of the summary, computed by
# hand from the ops listed there.
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
"$MKTRACE" "$dir/t.reel" || { echo "FAIL: mktrace"; exit 1; }
"$IOREEL" info --json "$dir/t.reel" > "$dir/info.json" || { echo "FAIL: info --json exit $?"; exit 1; }
"$IOREEL" info "$dir/t.reel" > "$dir/info.txt" || { echo "FAIL: info exit $?"; exit 1; }
minor=$(sed -n 's/^#define REEL_VERSION_MINOR //p' "$(dirname "$0")/../../format/reel.h")
python3 - "$dir/info.json" "$minor" <<'PY' || exit 1
import json, sys
i = json.load(open(sys.argv[1]))
want = {
    "format": "1.%d" % int(sys.argv[2]), "ops": 9, "duration_ns": 50000 - 1000, "first_start_ns": 1000, "last_end_ns": 50000,
    # pread 4096 + read 100; the pwrite 8192 (the failed write adds nothing)
    "bytes_read": 4196, "bytes_written": 8192,
    "processes": 2, "threads": 3,
    # /data/db (furthest byte 4096+8192), the weird path (opened: 0), /data/a, /data/b
    "files": 4, "file_set_bytes": 12288,
    "lost_events": 7, "footer_ops": 9, "damaged_regions": 0, "damage": [],
}
fail = 0
for k, v in want.items():
    if i.get(k) != v:
        print("FAIL: %s = %r, want %r" % (k, i.get(k), v)); fail = 1
byt = {"openat": (2, 0), "pwrite64": (1, 0), "pread64": (1, 0), "read": (1, 0),
       "write": (1, 1), "fsync": (1, 0), "renameat2": (1, 0), "fdatasync": (1, 0)}
got = {k: (v["count"], v["errors"]) for k, v in i["ops_by_type"].items()}
if got != byt:
    print("FAIL: ops_by_type %s" % got); fail = 1
m = i["meta"]
for k, v in {"host": "testhost", "kernel": "6.18.0-test", "command": "app --x",
             "lost_events": "7"}.items():
    if m.get(k) != v:
        print("FAIL: meta %s = %r" % (k, m.get(k))); fail = 1
sys.exit(fail)
PY
for re in "^format +1\\.$minor\$" '^duration +0\.000049 s$' '^ops +9$' '^bytes read +4196$' '^threads +3$' \
	'^files +4 \(reached 12288 bytes\)$' '^lost events +7$' '^  write +1  \(1 failed\)$' \
	'^  host +testhost$'; do
	grep -Eq "$re" "$dir/info.txt" || { echo "FAIL: text has no line $re"; cat "$dir/info.txt"; exit 1; }
done
# format 1.1: copies count as read (4096 + 1000 + 500, the failed one not), and as written
# when they went to a file (4096 + 1000, not the 500 sent to a socket); plus pread64's 10.
# Files: /d/src, /d/dst, /d/lnk; the content the symlink wrote and the readlink read back
# is none (FORMAT.md, "Copies")
"$MKTRACE" "$dir/v.reel" --v11 || { echo "FAIL: mktrace --v11"; exit 1; }
"$IOREEL" info "$dir/v.reel" > "$dir/v.txt" || { echo "FAIL: info v11"; exit 1; }
for re in '^bytes read +5606$' '^bytes written +5096$' '^  copy_file_range +2  \(1 failed\)$' \
	'^  sendfile +2$' '^  symlink +1$' '^  readlink +1$' \
	'^files +3 \(reached 9492 bytes\)$'; do
	grep -Eq "$re" "$dir/v.txt" || { echo "FAIL: v11 text has no line $re"; cat "$dir/v.txt"; exit 1; }
done
echo PASS
