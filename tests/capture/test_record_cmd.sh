#!/bin/bash
# ioreel record -- sh -c '...': the basic ops of a small shell pipeline come out with their
# exact absolute paths (relative ones resolved against the cwd the shell cd'ed to), file
# positions for read/write (set by lseek, not passed), lengths and results; fork is followed.
# With -q and nothing lost, record says nothing. The command's exit ends the capture (meta
# capture.stopped_by=exit); -d's time, when the command outlives it, ends the capture and
# leaves the command running, and says so.
source "$(dirname "$0")/lib.sh"

"$IOREEL" record -q -o "$dir/t.reel" -- sh -c "cd $dir && mkdir sub && printf 0123456789 > sub/a &&
	dd if=sub/a of=sub/b bs=4 skip=1 seek=2 conv=notrunc status=none && mv sub/b sub/c &&
	rm sub/a" 2>"$dir/t.err" || { echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }

fail=0
# -q, nothing lost: nothing said
[ -s "$dir/t.err" ] && { echo "FAIL: record -q said: $(cat "$dir/t.err")"; fail=1; }
expect() { # a regex that some op line must match
	if ! grep -Eq -- "$1" "$dir/ops.txt"; then
		echo "FAIL: no op matches: $1"
		fail=1
	fi
}
D="$dir"
expect "^op=mkdir(at)? .* path=$D/sub .* ret=0 "
expect "^op=openat .*kind=reg .* path=$D/sub/a .* flags=0x241 .* ret=[0-9]+ "
expect "^op=write .* fd=1 .* path=$D/sub/a .* offset=0 len=10 ret=10 "
expect "^op=read .* fd=0 .* path=$D/sub/a .* offset=4 len=4 ret=4 "
expect "^op=read .* fd=0 .* path=$D/sub/a .* offset=8 len=4 ret=2 "
expect "^op=write .* fd=1 .* path=$D/sub/b .* offset=8 len=4 ret=4 "
expect "^op=write .* fd=1 .* path=$D/sub/b .* offset=12 len=2 ret=2 "
expect "^op=rename(at2?)? .* path=$D/sub/b path2=$D/sub/c .* ret=0 "
expect "^op=unlink(at)? .* path=$D/sub/a .* ret=0 "
expect "^meta lost_events=0$"
expect "^meta anonymized=0$"
expect "^meta capture.stopped_by=exit$"
# the pipeline ran in several processes: the forks were followed
npids=$(grep '^op=' "$dir/ops.txt" | sed 's/.* pid=\([0-9]*\) .*/\1/' | sort -u | wc -l)
if [ "$npids" -lt 4 ]; then
	echo "FAIL: ops from $npids processes, expected sh, mkdir, dd, mv, rm"
	fail=1
fi
# a relative path must never reach the trace
if grep -E '^op=.* path=[^/-]' "$dir/ops.txt"; then
	echo "FAIL: relative path in the trace"
	fail=1
fi

# -d 1 -- CMD that runs on: record returns after 1 s, exit 0, saying the command is still
# running and no longer recorded (it used to say nothing); the command is not killed
cmd=
trap '[ -n "$cmd" ] && kill $cmd 2>/dev/null; rm -rf "$dir"' EXIT
t0=$(date +%s%N)
"$IOREEL" record -q -o "$dir/d.reel" -d 1 -- sh -c "echo \$\$ > $dir/cmd.pid; exec sleep 30" \
	2>"$dir/d.err"
rc=$?
t1=$(date +%s%N)
cmd=$(cat "$dir/cmd.pid")
[ $rc = 0 ] || { echo "FAIL: record -d 1 exited $rc"; cat "$dir/d.err"; fail=1; }
[ $(( (t1 - t0) / 1000000 )) -lt 5000 ] || { echo "FAIL: record -d 1 took $(( (t1 - t0) / 1000000 )) ms"; fail=1; }
kill -0 "$cmd" 2>/dev/null || { echo "FAIL: the command was not left running"; fail=1; }
grep -qx "ioreel: stopped after 1 s (-d); sh (pid $cmd) is still running, no longer recorded" "$dir/d.err" ||
	{ echo "FAIL: record -d 1 did not say the command is left running:"; cat "$dir/d.err"; fail=1; }
"$PRINT" "$dir/d.reel" | grep -qx "meta capture.stopped_by=duration" ||
	{ echo "FAIL: no meta capture.stopped_by=duration"; fail=1; }
"$IOREEL" info "$dir/d.reel" | grep -q "^stopped by    duration$" ||
	{ echo "FAIL: info does not say the capture stopped at its duration"; fail=1; }

[ $fail = 0 ] && echo "PASS"
exit $fail
