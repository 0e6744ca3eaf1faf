#!/bin/bash
# A file set that does not fit the target's free space is refused before anything is written
# (a RAM disk that fills up takes the machine's memory with it), with one line saying how
# much is needed and how much is free; a set that fits on the same file system replays, and
# two --map roots on one file system count together.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: mounting a small tmpfs needs root"; exit 77; }
mkdir -p "$T/small"
mount -t tmpfs -o size=4m ioreel-test "$T/small" || { echo "SKIP: cannot mount tmpfs"; exit 77; }
trap 'umount "$T/small"; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

mk big <<'SPEC'
100 100 0 10 openat path=/db/a flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=8388608 len=4096 ret=4096
100 100 200 210 close fd=3 ret=0
SPEC
mk fits <<'SPEC'
100 100 0 10 openat path=/db/a flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=1048576 len=4096 ret=4096
100 100 200 210 close fd=3 ret=0
SPEC
# two files of 2.5 MiB: each fits alone, not both on one 4 MiB file system
mk two <<'SPEC'
100 100 0 10 openat path=/db/a flags=O_RDONLY ret=3
100 100 100 110 pread64 fd=3 off=2621440 len=4096 ret=4096
100 100 200 210 openat path=/wal/b flags=O_RDONLY ret=4
100 100 300 310 pread64 fd=4 off=2621440 len=4096 ret=4096
SPEC

"$IOREEL" replay "$T/big.reel" --target "$T/small/t" -o "$T/r.reel" -q 2> "$T/err"
rc=$?
[ $rc != 0 ] || fail "an 8 MiB file set was prepared on a 4 MiB tmpfs"
[ "$(wc -l < "$T/err")" = 1 ] || { cat "$T/err"; fail "not one line of error"; }
# in MiB below a GiB (it read "needs 0.01 GiB ... has 0.00 GiB free")
grep -q "the file set needs 8.0 MiB on $T/small/t, which has [0-9]\.[0-9] MiB free: refusing" "$T/err" ||
	{ cat "$T/err"; fail "the error does not say what is needed and what is free"; }
# the target it made for this is gone again: nothing was written
[ ! -e "$T/small/t" ] || fail "left behind: $(ls -A "$T/small/t")"

"$IOREEL" replay "$T/fits.reel" --target "$T/small/t" -o "$T/r.reel" -q 2> "$T/err" ||
	{ cat "$T/err"; fail "a 1 MiB file set did not replay on a 4 MiB tmpfs"; }
check_same_ops "$T/fits.reel" "$T/r.reel" > /dev/null

rm -rf "$T/small/t"
mkdir -p "$T/small/t" "$T/small/w"
"$IOREEL" replay "$T/two.reel" --target "$T/small/t" --map "/wal=$T/small/w" -o "$T/r.reel" -q \
	2> "$T/err" && fail "two 2.5 MiB files were prepared on one 4 MiB tmpfs"
grep -q "refusing to fill it" "$T/err" || { cat "$T/err"; fail "no refusal for two roots"; }
"$IOREEL" replay "$T/two.reel" --target "$T/small/t" --map "/wal=$T/w" -o "$T/r.reel" -q \
	2> "$T/err" || { cat "$T/err"; fail "the WAL mapped to another file system did not replay"; }

# the application writes more than the target holds: the replay says the target was full,
# and the report that the ops after it are not comparable (reads of what was not written came
# back short, and read "107x faster")
{
	echo "100 100 0 10 openat path=/log flags=O_WRONLY|O_CREAT mode=0644 ret=3"
	for i in $(seq 0 5); do
		echo "100 100 $((100 + i * 100)) $((150 + i * 100)) pwrite64 fd=3 off=$((i * 1048576)) len=1048576 ret=1048576"
	done
	echo "100 100 700 710 close fd=3 ret=0"
	echo "100 100 800 810 openat path=/log flags=O_RDONLY ret=3"
	for i in $(seq 0 5); do
		echo "100 100 $((900 + i * 100)) $((920 + i * 100)) pread64 fd=3 off=$((i * 1048576)) len=4096 ret=4096"
	done
} | mk full
rm -rf "$T/small/t" "$T/small/w"
"$IOREEL" replay "$T/full.reel" --target "$T/small/t" -o "$T/rf.reel" >"$T/out" 2>&1 ||
	fail "replay of a trace that fills the target: $(cat "$T/out")"
grep -q "TARGET FULL: [1-9][0-9]* ops failed ENOSPC" "$T/out" || fail "no TARGET FULL: $(cat "$T/out")"
"$IOREEL" report "$T/full.reel" "$T/rf.reel" >"$T/rep" 2>&1 || fail "report: $(cat "$T/rep")"
grep -q "$T/small/t ran out of space: [1-9][0-9]* ops failed ENOSPC" "$T/rep" ||
	fail "the report does not say the target was full: $(sed -n '/verdict/,$p' "$T/rep")"
echo PASS
