#!/bin/bash
# munmap is recorded (format 1.2) where the process had mapped a file, with that file's
# path; malloc's munmaps of anonymous memory are not file I/O and are left out. A script
# maps a file, unmaps it, frees a large buffer (an anonymous mmap and munmap) and removes
# the file: one munmap of the file's mapping, as long as it, and every munmap of the trace
# has a path (the dynamic loader's of /etc/ld.so.cache are the rest). The replay unmaps its
# mapping there, so the unlink after it is not one of a file the replay still maps.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
cat > "$dir/wl.py" <<'PY'
import mmap, os, sys
p = sys.argv[1]
with open(p, "wb") as f:
    f.write(b"x" * 65536)
fd = os.open(p, os.O_RDONLY)
m = mmap.mmap(fd, 65536, prot=mmap.PROT_READ)
os.close(fd)
assert m[100] == ord("x")
m.close()
big = bytearray(32 << 20)
del big
os.unlink(p)
PY
"$IOREEL" record -q -o "$dir/m.reel" -- python3 "$dir/wl.py" "$dir/f.dat" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$IOREEL" dump --format csv "$dir/m.reel" | awk -F, '$1 == "munmap" { print $6, $9, $10 }' > "$dir/mu"
got=$(grep -c "^$dir/f.dat 65536 0$" "$dir/mu")
[ "$got" = 1 ] || { echo "FAIL: $got munmaps of $dir/f.dat, 65536 bytes, want 1:"; cat "$dir/mu"; exit 1; }
! grep -q "^ " "$dir/mu" || { echo "FAIL: munmaps of no file (anonymous memory):"; cat "$dir/mu"; exit 1; }
"$IOREEL" replay "$dir/m.reel" --target "$dir/tgt" -o "$dir/r.reel" > "$dir/r.out" 2>&1 ||
	{ echo "FAIL: replay: $(cat "$dir/r.out")"; exit 1; }
grep -q "outcomes differing from the original: 0" "$dir/r.out" ||
	{ echo "FAIL: replay:"; cat "$dir/r.out"; exit 1; }
! grep -q "the replay still had mapped" "$dir/r.out" ||
	{ echo "FAIL: the unlink counted as one of a mapped file:"; cat "$dir/r.out"; exit 1; }
echo PASS
