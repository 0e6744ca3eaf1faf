#!/bin/bash
# A dup2 over an fd, of an fd whose file the trace does not know (open before the capture,
# or never opened in a strace log): the fd no longer names the file it had, so a later
# pwrite64 on it is not that file's. info's file set, the fio export and the strace import
# each kept the old file and put the write at 1 MiB into /d/a.
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$MKTRACE" "$dir/t.reel" --dup2-unknown || fail "mktrace"
"$IOREEL" info "$dir/t.reel" | grep -Eq '^files +1 \(reached 4096 bytes\)$' ||
	fail "info: $("$IOREEL" info "$dir/t.reel" | grep '^files')"
"$IOREEL" export fio "$dir/t.reel" -o "$dir/t.fio" 2>/dev/null || fail "export fio exited $?"
grep -q "/d/a write 0 4096" "$dir"/t.fio.* || fail "the iolog lost the write at 0"
! grep -q "/d/a write 1048576" "$dir"/t.fio.* || fail "the iolog writes /d/a at 1 MiB"

cat >"$dir/d.log" <<'LOG'
100 1700000000.000100 openat(AT_FDCWD, "/data/a", O_RDWR) = 5 <0.000010>
100 1700000000.000200 pwrite64(5, "x"..., 4096, 0) = 4096 <0.000010>
100 1700000000.000300 dup2(9, 5) = 5 <0.000010>
100 1700000000.000400 pwrite64(5, "x"..., 4096, 1048576) = 4096 <0.000010>
100 1700000000.000500 exit_group(0) = ?
LOG
"$IOREEL" import strace "$dir/d.log" -o "$dir/d.reel" 2>/dev/null || fail "import exited $?"
"$IOREEL" dump --format jsonl "$dir/d.reel" | grep '"op":"pwrite64"' | grep -q '"offset":1048576,.*"/data/a"\|"path":"/data/a".*"offset":1048576' &&
	fail "the import put the write at 1 MiB into /data/a"
"$IOREEL" info "$dir/d.reel" | grep -Eq '^files +1 \(reached 4096 bytes\)$' ||
	fail "import: $("$IOREEL" info "$dir/d.reel" | grep '^files')"
echo PASS
