#!/bin/bash
# ioreel import strace takes sync(2) as the recorder does: a syncfs with no fd (fd -1), every
# file system's sync, which the replay makes a syncfs of its targets' file systems. The import
# left it out: Kyoto Cabinet's directory database syncs its transactions so (kcdirtest tran
# -hard under strace: 20 sync() calls, 50 ms), and none was in the trace.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/t.strace" <<'LOG'
4000  1700000000.000000 openat(AT_FDCWD</w>, "f", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3</w/f> <0.000010>
4000  1700000000.001000 write(3</w/f>, "abcd", 4) = 4 <0.000010>
4000  1700000000.002000 sync() = 0 <0.000900>
4000  1700000000.003000 close(3</w/f>) = 0 <0.000010>
LOG

"$IOREEL" import strace "$dir/t.strace" -o "$dir/t.reel" 2> "$dir/t.err" ||
	{ echo "FAIL: import exited $?"; cat "$dir/t.err"; exit 1; }
line=$("$IOREEL" dump --format jsonl "$dir/t.reel" | grep '"op":"syncfs"')
[ -n "$line" ] || { echo "FAIL: no syncfs for sync(): $("$IOREEL" dump "$dir/t.reel")"; exit 1; }
echo "$line" | grep -q '"fd":-1,.*"ret":0,' ||
	{ echo "FAIL: sync() imported as $line, want fd -1, ret 0"; exit 1; }
echo "$line" | grep -q '"start_ns":2000000,"end_ns":2900000,' ||
	{ echo "FAIL: sync() times: $line"; exit 1; }
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -o "$dir/r.reel" > "$dir/r.out" 2>&1 ||
	{ echo "FAIL: replay: $(cat "$dir/r.out")"; exit 1; }
grep -q "ops not replayed: 0" "$dir/r.out" ||
	{ echo "FAIL: the replay left ops out:"; cat "$dir/r.out"; exit 1; }
echo PASS
