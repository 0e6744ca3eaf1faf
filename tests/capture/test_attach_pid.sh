#!/bin/bash
# ioreel record -p PID on a process whose files were opened before the capture: its ops
# keep their paths (from the /proc snapshot), read/write get the file position the process
# had (set before the capture), O_APPEND writes the end of the file, dups share the path,
# pipe I/O is counted and left out, fstat is fstat; the capture ends when the process does.
# A file opened O_DIRECT before the capture is named in the head meta (capture.fd_flags), so
# that a replay opens it O_DIRECT too (its reads came from the page cache before); every file
# open then is named with its size (capture.fd_sizes), so that a replay prepares it as long.
source "$(dirname "$0")/lib.sh"
PROG=$3
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$dir"' EXIT

"$PROG" "$dir" &
pid=$!
pid_seen=$pid
for i in $(seq 100); do [ -e "$dir/ready" ] && break; sleep 0.05; done
[ -e "$dir/ready" ] || { echo "FAIL: test program did not start"; exit 1; }

"$IOREEL" record -o "$dir/t.reel" -p "$pid" -d 20 2> "$dir/rec.err" &
rec=$!
for i in $(seq 200); do grep -q "recording" "$dir/rec.err" && break; sleep 0.05; done
grep -q "recording" "$dir/rec.err" || { echo "FAIL: recorder did not attach"; cat "$dir/rec.err"; exit 1; }
kill -USR1 $pid
SECONDS=0
wait $pid || { echo "FAIL: test program failed"; exit 1; }
pid=
wait $rec || { echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
if [ $SECONDS -ge 10 ]; then
	echo "FAIL: the capture did not end when the followed process did"
	exit 1
fi
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }

fail=0
expect() {
	if ! grep -Eq -- "$1" "$dir/ops.txt"; then
		echo "FAIL: no op matches: $1"
		fail=1
	fi
}
D="$dir"
expect "^op=read .*kind=reg .* path=$D/a .* offset=1000 len=100 ret=100 "
expect "^op=pread64 .* path=$D/a .* offset=5000 len=50 ret=50 "
expect "^op=readv .* path=$D/a .* offset=1100 len=24 ret=24 "
expect "^op=write .* path=$D/b .* offset=300 len=10 ret=10 "
expect "^op=pread64 .* path=$D/a .* offset=9 len=7 ret=7 "
expect "^op=dup2 .* fd2=20 path=$D/a "
expect "^op=pread64 .* fd=20 .* path=$D/a .* offset=30 len=3 ret=3 "
expect "^op=fstat .* path=$D/a .* ret=0 "
expect "^op=close .* path=$D/a .* ret=0 "
expect "^op=pread64 .* fd=30 .* path=$D/d .* offset=4096 len=4096 ret=4096 "
expect "^meta capture.fd_flags=(.* )?$pid_seen:30:40000( |$)"
expect "^meta capture.fd_sizes=(.* )?$pid_seen:30:16384( |$)"
expect "^meta capture.fd_sizes=(.* )?$pid_seen:[0-9]+:300( |$)"

expect "^meta nonfile_ops=[1-9]"
if grep -Eq '^op=.* kind=(fifo|sock)' "$dir/ops.txt"; then
	echo "FAIL: pipe I/O recorded as ops"
	fail=1
fi
if grep -Eq "^op=(read|pread64|readv|write|close) .* path=- " "$dir/ops.txt"; then
	echo "FAIL: an op on a pre-opened fd lost its path"
	fail=1
fi
[ $fail = 0 ] && echo "PASS"
exit $fail
