#!/bin/bash
# ioreel slice: a time window of a trace replays as if the recorder had attached at its start.
# A hand-made trace whose ops before the window leave fds open (one O_DSYNC file grown by a
# write, one created and written, one listed by the capture as held from before it with
# O_DIRECT and a size) and io_uring requests submitted before it and in it; the slice must
# hold exactly the window's ops, moved to time 0 (a request whole when submitted in the
# window, even if it completed after it; not at all when submitted before, even if it
# completed in it: its completion record starts at its submission), carry those fds with
# their flags and their sizes at the window's start, and replay with every outcome as in the
# original and the files as long as they were. Then the shipped
# PostgreSQL trace: two seconds from its middle replay with 0 differing outcomes and its WAL
# segment prepared at its 16 MiB. Last, bad windows and a damaged trace.
source "$(dirname "$0")/lib.sh"

{
	echo "meta capture.fd_flags 100:7:40002"
	echo "meta capture.fd_sizes 100:7:131072"
	# before the window (it starts at 10 ms)
	echo "100 100 100 110 openat path=/d/a flags=O_RDWR|O_DSYNC ret=3 aux=8193"
	echo "100 100 200 210 pwrite64 fd=3 path=/d/a off=8192 len=4096 ret=4096"
	echo "100 100 300 310 openat path=/d/b flags=O_RDWR|O_CREAT mode=0644 ret=4 aux=1"
	echo "100 100 400 410 write fd=4 path=/d/b off=0 len=5000 ret=5000"
	echo "100 100 500 510 openat path=/d/c flags=O_RDONLY ret=5 aux=1001"
	echo "100 100 600 610 close fd=5 ret=0"
	echo "100 101 700 700 uring_submit fd=3 path=/d/a ctx=9 aux=77 subop=22 off=0 len=4096 ret=1"
	echo "100 101 700 10500 uring_complete fd=3 path=/d/a ctx=9 aux=77 subop=22 off=0 len=4096 ret=4096"
	echo "100 101 800 810 pread64 fd=7 path=/d/d off=0 len=4096 ret=4096"
	# the window: 10 ms .. 20 ms
	echo "100 100 11000 11010 pwrite64 fd=3 path=/d/a off=0 len=4096 ret=4096"
	echo "100 100 12000 12010 pread64 fd=4 path=/d/b off=0 len=5000 ret=5000"
	echo "100 101 13000 13010 pwrite64 fd=7 path=/d/d off=61440 len=4096 ret=4096"
	echo "100 100 14000 14100 fdatasync fd=3 path=/d/a ret=0"
	echo "100 101 15000 15000 uring_submit fd=3 path=/d/a ctx=9 aux=78 subop=22 off=4096 len=4096 ret=1"
	echo "100 101 15000 15050 uring_complete fd=3 path=/d/a ctx=9 aux=78 subop=22 off=4096 len=4096 ret=4096"
	echo "100 100 19999 20010 pread64 fd=3 path=/d/a off=0 len=4096 ret=4096"
	echo "100 101 19999 19999 uring_submit fd=3 path=/d/a ctx=9 aux=79 subop=22 off=0 len=4096 ret=1"
	echo "100 101 19999 21000 uring_complete fd=3 path=/d/a ctx=9 aux=79 subop=22 off=0 len=4096 ret=4096"
	# after it
	echo "100 100 20000 20010 close fd=3 ret=0"
	echo "100 100 25000 25010 close fd=4 ret=0"
} | mk t

"$IOREEL" slice "$T/t.reel" --from 10ms --to 20ms -o "$T/s.reel" 2>"$T/err" ||
	fail "slice: status $?: $(cat "$T/err")"
grep -q "wrote $T/s.reel: 9 of 20 ops, 0.010000 s to 0.020000 s of $T/t.reel; 3 fd(s) open at the start carried$" \
	"$T/err" || fail "slice summary: $(cat "$T/err")"

# exactly the window's ops, in order, times moved by 10 ms
"$IOREEL" dump --format csv "$T/s.reel" | cut -d, -f1,4,5 | tail -n +2 >"$T/ops"
cat >"$T/want" <<'W'
pwrite64,1000000,1010000
pread64,2000000,2010000
pwrite64,3000000,3010000
fdatasync,4000000,4100000
uring_submit,5000000,5000000
uring_complete,5000000,5050000
pread64,9999000,10010000
uring_submit,9999000,9999000
uring_complete,9999000,11000000
W
diff "$T/want" "$T/ops" >&2 || fail "the slice's ops are not the window's, moved to 0"

# the head: a (O_DSYNC, 12288 bytes then), b (5000), d (listed: O_DIRECT|O_RDWR, 131072)
meta() { "$IOREEL" info "$T/s.reel" | sed -n "s/^  $1  *//p"; }
flags=$(meta capture.fd_flags | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$flags" = "100:3:10000 100:7:40000 " ] || fail "capture.fd_flags: '$flags'"
sizes=$(meta capture.fd_sizes | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$sizes" = "100:3:12288 100:4:5000 100:7:131072 " ] || fail "capture.fd_sizes: '$sizes'"
[ "$(meta slice.from_ns)" = 10000000 ] && [ "$(meta slice.to_ns)" = 20000000 ] &&
	[ "$(meta slice.of)" = "$T/t.reel" ] || fail "slice.* meta"

# it replays as the window did: each fd opened when first used, each file as long as it was
for timing in original afap; do
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/s.reel" --target "$T/tgt" --timing $timing \
		-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay $timing: status $?: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" &&
		grep -q "ops not replayed: 0" "$T/out" || {
		cat "$T/out"
		fail "replay of the slice, timing $timing"
	}
	check_same_ops "$T/s.reel" "$T/r.reel" >/dev/null
	check_size "$T/tgt/d/a" 12288 "a, O_DSYNC, grown before the window"
	check_size "$T/tgt/d/b" 5000 "b, created before the window"
	check_size "$T/tgt/d/d" 131072 "d, held from before the capture"
	[ ! -e "$T/tgt/d/c" ] || fail "c, closed before the window, prepared"
done

# a real trace: the middle two seconds of the shipped PostgreSQL run
PG=$HERE/../../samples/postgres/pgbench.reel
"$IOREEL" slice "$PG" --from 3 --duration 2s -o "$T/pg.reel" 2>"$T/err" ||
	fail "slice of the PostgreSQL sample: $(cat "$T/err")"
n=$("$IOREEL" dump --format csv "$PG" |
	awk -F, 'NR > 1 && $4 >= 3000000000 && $4 < 5000000000 { n++ } END { print n + 0 }')
grep -q "wrote $T/pg.reel: $n of " "$T/err" || fail "PostgreSQL slice: want $n ops: $(cat "$T/err")"
rm -rf "$T/tgt"
timeout -s KILL 120 "$IOREEL" replay "$T/pg.reel" --target "$T/tgt" --timing afap \
	-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay of the PostgreSQL slice: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" &&
	grep -q "ops not replayed: 0" "$T/out" || {
	cat "$T/out"
	fail "replay of the PostgreSQL slice"
}
wal=$(find "$T/tgt" -path '*pg_wal/0000*' -type f | head -1)
[ -n "$wal" ] || fail "no WAL segment prepared for the PostgreSQL slice"
check_size "$wal" 16777216 "the WAL segment, written in place in the slice"

# bad windows: one line, status 2 (usage) or 1 (nothing in it), no file left
"$IOREEL" slice "$T/t.reel" --from 5ms --to 5ms -o "$T/e.reel" 2>"$T/err"
[ $? = 2 ] && grep -q "the window is empty" "$T/err" || fail "empty window: $(cat "$T/err")"
"$IOREEL" slice "$T/t.reel" --from 1x -o "$T/e.reel" 2>"$T/err"
[ $? = 2 ] && grep -q "'1x' is not a time" "$T/err" || fail "bad time: $(cat "$T/err")"
"$IOREEL" slice "$T/t.reel" --from 1s -o "$T/e.reel" 2>"$T/err"
[ $? = 1 ] && grep -q "no op started between 1.000000 s and inf s (its ops start from 0.000100 to 0.025000 s)" \
	"$T/err" || fail "window past the end: $(cat "$T/err")"
[ ! -e "$T/e.reel" ] || fail "an empty slice left behind"
# a failed slice leaves OUT as it was; OUT that is not a regular file, or TRACE a pipe, refused
cp "$T/t.reel" "$T/keep.reel"
"$IOREEL" slice "$T/t.reel" --from 1s -o "$T/keep.reel" 2>/dev/null
cmp -s "$T/t.reel" "$T/keep.reel" || fail "a failed slice changed the OUT that was there"
mknod "$T/null" c 1 3 && {
	"$IOREEL" slice "$T/t.reel" --from 1s -o "$T/null" 2>"$T/err"
	[ $? = 2 ] && [ -c "$T/null" ] && grep -q "is there and not a regular file" "$T/err" ||
		fail "OUT a device: $(cat "$T/err")"
}
"$IOREEL" slice <(cat "$T/t.reel") -o "$T/e.reel" 2>"$T/err"
[ $? = 2 ] && grep -q "not a regular file (a slice reads TRACE twice" "$T/err" ||
	fail "TRACE a pipe: $(cat "$T/err")"
# times: seconds by default, ms/us/ns/m units, no negative, infinite or overlong ones
"$IOREEL" slice "$T/t.reel" --from 0.01 --to 20000us -o "$T/u.reel" 2>/dev/null &&
	cmp -s <("$IOREEL" dump "$T/u.reel") <("$IOREEL" dump "$T/s.reel") ||
	fail "--from 0.01 --to 20000us is not the 10ms..20ms slice"
for bad in -1 inf nan 1e10 5x 2h; do
	"$IOREEL" slice "$T/t.reel" --from "$bad" -o "$T/e.reel" 2>/dev/null
	[ $? = 2 ] || fail "--from $bad accepted"
done
"$IOREEL" slice "$T/t.reel" --to 0.0005m -o "$T/m.reel" 2>"$T/err" &&
	grep -q "of 20 ops, 0.000000 s to 0.030000 s" "$T/err" || fail "--to 0.0005m: $(cat "$T/err")"
"$IOREEL" slice "$T/t.reel" -o "$T/t.reel" 2>"$T/err"
[ $? = 2 ] && grep -q "OUT must not be TRACE itself" "$T/err" || fail "slice onto itself"

# damaged: the slice holds what could be read, and says where the damage is
sz=$(stat -c %s "$PG")
head -c $((sz / 2)) "$PG" >"$T/cut.reel"
"$IOREEL" slice "$T/cut.reel" --from 0 -o "$T/c.reel" 2>"$T/err"
[ $? = 1 ] && grep -q "cut.reel is damaged at byte" "$T/err" || fail "damaged: $(cat "$T/err")"
n=$("$IOREEL" info "$T/c.reel" 2>/dev/null | awk '$1 == "ops" && $2 ~ /^[0-9]+$/ { print $2 }')
[ "${n:-0}" -gt 10000 ] || fail "damaged: the slice kept ${n:-0} ops"
# sizes at the window's start followed through renames and truncations before it (the
# replay of the slice must leave each file as long as the replay of the whole trace does):
# a file renamed while open, a file whose directory was renamed (open on two fds), two files exchanged
# (RENAME_EXCHANGE), and an O_TRUNC open of unknown size (an import's)
{
	echo "200 200 100 110 openat path=/e/a flags=O_RDWR|O_CREAT mode=0644 ret=3 aux=1"
	echo "200 200 200 210 pwrite64 fd=3 path=/e/a off=0 len=65536 ret=65536"
	echo "200 200 300 310 rename path=/e/a path2=/e/b ret=0"
	echo "200 200 400 410 mkdir path=/e/x mode=0755 ret=0"
	echo "200 200 500 510 openat path=/e/x/f flags=O_RDWR|O_CREAT mode=0644 ret=4 aux=1"
	echo "200 200 600 610 pwrite64 fd=4 path=/e/x/f off=0 len=65536 ret=65536"
	echo "200 200 650 660 dup fd=4 path=/e/x/f ret=8"
	echo "200 200 700 710 pwrite64 fd=8 path=/e/x/f off=65536 len=65536 ret=65536"
	echo "200 200 800 810 rename path=/e/x path2=/e/y ret=0"
	echo "200 200 900 910 openat path=/e/c flags=O_RDWR|O_CREAT mode=0644 ret=5 aux=1"
	echo "200 200 1000 1010 pwrite64 fd=5 path=/e/c off=0 len=65536 ret=65536"
	echo "200 200 1100 1110 openat path=/e/d flags=O_RDWR|O_CREAT mode=0644 ret=6 aux=1"
	echo "200 200 1200 1210 pwrite64 fd=6 path=/e/d off=0 len=8192 ret=8192"
	echo "200 200 1300 1310 renameat2 fd=-100 fd2=-100 path=/e/c path2=/e/d flags=2 ret=0"
	echo "200 200 1400 1410 openat path=/e/g flags=O_RDWR|O_CREAT mode=0644 ret=7"
	echo "200 200 1500 1510 pwrite64 fd=7 path=/e/g off=0 len=65536 ret=65536"
	echo "200 200 1600 1610 close fd=7 path=/e/g ret=0"
	echo "200 200 1700 1710 openat path=/e/g flags=O_RDWR|O_TRUNC ret=7"
	# the window: 10 ms ..
	echo "200 200 10000 10010 pwrite64 fd=3 path=/e/b off=0 len=4096 ret=4096"
	echo "200 200 10100 10110 pwrite64 fd=4 path=/e/y/f off=0 len=4096 ret=4096"
	echo "200 200 10150 10160 pread64 fd=8 path=/e/y/f off=126976 len=4096 ret=4096"
	echo "200 200 10200 10210 pwrite64 fd=5 path=/e/d off=0 len=4096 ret=4096"
	echo "200 200 10300 10310 pwrite64 fd=6 path=/e/c off=0 len=4096 ret=4096"
	echo "200 200 10400 10410 pwrite64 fd=7 path=/e/g off=0 len=4096 ret=4096"
} | mk t2
"$IOREEL" slice "$T/t2.reel" --from 10ms -o "$T/s2.reel" 2>"$T/err" || fail "slice t2: $(cat "$T/err")"
sizes=$("$IOREEL" info "$T/s2.reel" | sed -n 's/^  capture.fd_sizes  *//p' | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$sizes" = "200:3:65536 200:4:131072 200:5:65536 200:6:8192 200:7:0 200:8:131072 " ] ||
	fail "t2 capture.fd_sizes: '$sizes'"
rm -rf "$T/tgt"
"$IOREEL" replay "$T/s2.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay of the t2 slice: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "t2 slice: $(cat "$T/out")"
check_size "$T/tgt/e/b" 65536 "a file renamed while open"
check_size "$T/tgt/e/y/f" 131072 "a file whose directory was renamed while it was open"
check_size "$T/tgt/e/d" 65536 "the 64 KiB file exchanged to the name d"
check_size "$T/tgt/e/c" 8192 "the 8 KiB file exchanged to the name c"
check_size "$T/tgt/e/g" 4096 "a file cut by an O_TRUNC open of unknown size"
# processes (format 1.4): a window after a fork finds the parent's fds open in the child, with
# their flags and sizes, and none of a process that exited before it
{
	echo "300 300 100 110 openat path=/f/a flags=O_RDWR|O_CREAT|O_DSYNC mode=0644 ret=3 aux=1"
	echo "300 300 200 210 pwrite64 fd=3 path=/f/a off=0 len=65536 ret=65536"
	echo "300 300 300 310 openat path=/f/b flags=O_RDWR|O_CREAT mode=0644 ret=4 aux=1"
	echo "300 300 400 400 fork ret=301"
	echo "300 300 500 510 close fd=4 path=/f/b ret=0"
	echo "300 300 600 600 exit ret=0"
	# the window: 10 ms ..
	echo "301 301 10000 10010 pwrite64 fd=3 path=/f/a off=65536 len=4096 ret=4096"
	echo "301 301 10100 10110 pwrite64 fd=4 path=/f/b off=0 len=4096 ret=4096"
	echo "301 301 10200 10200 exit ret=0"
} | mk t3
"$IOREEL" slice "$T/t3.reel" --from 10ms -o "$T/s3.reel" 2>"$T/err" || fail "slice t3: $(cat "$T/err")"
meta() {
	"$IOREEL" info "$T/s3.reel" | sed -n "s/^  $1  *//p" | tr ' ' '\n' | sort | tr '\n' ' '
}
[ "$(meta capture.fd_flags)" = "301:3:10000 " ] ||
	fail "t3 capture.fd_flags: '$(meta capture.fd_flags)', want the child's fds only"
[ "$(meta capture.fd_sizes)" = "301:3:65536 301:4:0 " ] ||
	fail "t3 capture.fd_sizes: '$(meta capture.fd_sizes)'"
rm -rf "$T/tgt"
"$IOREEL" replay "$T/s3.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay of the t3 slice: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "t3 slice: $(cat "$T/out")"
check_size "$T/tgt/f/a" 69632 "a file the child wrote through its inherited fd"
echo "ok: slice"
