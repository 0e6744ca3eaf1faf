#!/bin/bash
# ioreel import strace records a munmap of a range where the process had mapped a file, with
# that file's path (format 1.2), as the recorder does; one of anonymous memory (malloc's) is
# not file I/O and is left out. A mapping unmapped whole is forgotten: a later munmap of its
# range (now anonymous memory again) is left out too.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/t.strace" <<'LOG'
5000  1700000000.000000 openat(AT_FDCWD</w>, "/w/a.tsm", O_RDONLY) = 3</w/a.tsm> <0.000010>
5000  1700000000.000100 mmap(NULL, 262144, PROT_READ, MAP_SHARED, 3</w/a.tsm>, 0) = 0x7f0000000000 <0.000010>
5000  1700000000.000200 close(3</w/a.tsm>) = 0 <0.000010>
5000  1700000000.000300 mmap(NULL, 1052672, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000200000 <0.000010>
5000  1700000000.000400 munmap(0x7f0000200000, 1052672) = 0 <0.000010>
5000  1700000000.000500 munmap(0x7f0000000000, 262144) = 0 <0.000020>
5000  1700000000.000600 munmap(0x7f0000000000, 4096) = 0 <0.000010>
5000  1700000000.000700 unlink("/w/a.tsm") = 0 <0.000010>
LOG

"$IOREEL" import strace "$dir/t.strace" -o "$dir/t.reel" 2> "$dir/t.err" ||
	{ echo "FAIL: import exited $?"; cat "$dir/t.err"; exit 1; }
"$IOREEL" dump --format csv "$dir/t.reel" | awk -F, '$1 == "munmap" { print $1, $6, $9, $10, $18 }' > "$dir/got"
echo "munmap /w/a.tsm 262144 0 139637976727552" > "$dir/want"
diff "$dir/want" "$dir/got" || { echo "FAIL: munmaps (want, got above)"; exit 1; }
echo PASS
