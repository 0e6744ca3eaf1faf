#!/bin/bash
# Stores through a shared writable mapping of a file reach it without a syscall: the Go linker
# writes its whole output so (a 4.1 MB binary, "wrote 535847 bytes" in the recording's
# summary, 8 MB mapped) and GNU ld likewise. record and info say how many such mappings
# there were and how long, beside bytes written; a private or read-only mapping is none.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
cat > "$dir/m.py" << 'PY'
import mmap, os, sys
d = sys.argv[1]
fd = os.open(d + "/out", os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(fd, 1 << 20)
m = mmap.mmap(fd, 1 << 20, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[:] = b"x" * (1 << 20)
m.flush()
m.close()
p = mmap.mmap(fd, 4096, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_WRITE)
p.close()
r = mmap.mmap(fd, 8192, mmap.MAP_SHARED, mmap.PROT_READ)
r.close()
os.close(fd)
PY
fail=0
"$IOREEL" record -o "$dir/m.reel" -- python3 "$dir/m.py" "$dir" 2> "$dir/rec.err" ||
	{ echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
grep -q "^  1 shared writable file mappings (1048576 bytes): .* neither recorded" "$dir/rec.err" ||
	{ echo "FAIL: record did not say so:"; cat "$dir/rec.err"; fail=1; }
"$IOREEL" info "$dir/m.reel" > "$dir/info" || { echo "FAIL: info exited $?"; exit 1; }
grep -q "^mapped  *1 shared writable file mappings, 1048576 bytes" "$dir/info" ||
	{ echo "FAIL: info did not say so:"; cat "$dir/info"; fail=1; }
"$IOREEL" info --json "$dir/m.reel" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["shared_writable_maps"] == 1 and j["shared_writable_map_bytes"] == 1 << 20, j
' || { echo "FAIL: info --json"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
