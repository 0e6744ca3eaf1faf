#!/bin/bash
# ioreel import strace: a close that another thread's open overtakes. The kernel frees the fd
# number as close enters, so an open can return it while the close is still "<unfinished
# ...>"; applied at its resumption, the close dropped the new file's fd, and the O_APPEND
# write through it went to an unknown position, counted from 0 (a Node.js script on libuv's
# thread pool: 4 of 429 appendFile writes landed at 0, and their reads came out short in the
# replay). The close is of the file it entered with, and the new fd keeps its file, position
# and O_APPEND.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/a.strace" <<'LOG'
100 1700000000.000000 openat(AT_FDCWD</w>, "/w/old", O_RDONLY|O_CLOEXEC) = 28</w/old> <0.000010>
100 1700000000.001000 openat(AT_FDCWD</w>, "/w/log", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 29</w/log> <0.000010>
101 1700000000.002000 pwrite64(29</w/log>, "aaaa"..., 3072, 0) = 3072 <0.000010>
102 1700000000.003000 close(29</w/log>) = 0 <0.000010>
101 1700000000.004000 close(28</w/old> <unfinished ...>
102 1700000000.005000 openat(AT_FDCWD</w>, "/w/log", O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0666) = 28</w/log> <0.000006>
101 1700000000.006000 <... close resumed>) = 0 <0.002000>
100 1700000000.007000 write(28</w/log>, "hello world\n", 12) = 12 <0.000010>
102 1700000000.008000 close(28</w/log>) = 0 <0.000010>
LOG
# threads of one process: 101 and 102 are clones of 100
sed -i '1i 100 1699999999.999000 clone(child_stack=NULL, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 101 <0.000010>\n100 1699999999.999500 clone(child_stack=NULL, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 102 <0.000010>' "$dir/a.strace"
"$IOREEL" import strace "$dir/a.strace" -o "$dir/a.reel" 2> "$dir/err" ||
	{ echo "FAIL: import: $(cat "$dir/err")"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/a.reel" > "$dir/a.jsonl" || { echo "FAIL: dump"; exit 1; }
python3 - "$dir/a.jsonl" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
closes = [o for o in ops if o["op"] == "close" and o["fd"] == 28]
writes = [o for o in ops if o["op"] == "write"]
ok = True
if not closes or closes[0]["path"] != "/w/old":
    print("FAIL: the overtaken close is not of /w/old:", closes); ok = False
if len(writes) != 1 or writes[0]["path"] != "/w/log" or writes[0]["offset"] != 3072:
    print("FAIL: the O_APPEND write is not at /w/log's end (3072):", writes); ok = False
sys.exit(0 if ok else 1)
PY
grep -q "strace.unknown_pos" <("$IOREEL" info "$dir/a.reel") &&
	{ echo "FAIL: positions unknown: $("$IOREEL" info "$dir/a.reel" | grep unknown_pos)"; exit 1; }
echo PASS
