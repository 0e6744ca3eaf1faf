#!/bin/bash
# A sendfile into a socket or a pipe: the original's time includes the network's (nginx:
# 99% of its I/O time, a loopback TCP push in each), while a replay moves the bytes into
# /dev/null. The verdict said "sendfile p99 falls from 8.42 ms to 70.9 µs (119× faster)" and
# nothing else; it now says how many sendfiles went to non-files and that their original
# times include the network. A sendfile into a file has no such note.
# usage: report_sendfile_net_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup sendfile_net "$@"

spec() { # spec MODE KIND: the original's or the replay's ops, into a destination of KIND
	local s d=2000
	[ "$1" = replay ] && d=20
	for i in $(seq 0 9); do
		s=""
		[ "$1" = replay ] && s=" sched=$((i * 10000))"
		echo "100 100 $((i * 10000)) $((i * 10000 + d)) sendfile fd=3 fd2=9 path=/srv/f" \
			"mode=$2 off=$((i * 4096)) len=4096 ret=4096$s"
	done
}
for kind in 6 1; do
	spec original $kind >"$T/o.txt"
	spec replay $kind >"$T/r.txt"
	mk_pair
	"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" 2>&1 || { cat "$T/out"; exit 1; }
	n=$(grep -c "10 sendfiles went to sockets or pipes (20.0 ms, 100% of the original's I/O time): the original's times include the network's" "$T/out")
	want=$([ $kind = 6 ] && echo 1 || echo 0)
	if [ "$n" != "$want" ]; then
		sed -n '/^verdict/,$p' "$T/out"
		echo "FAIL: destination kind $kind: $n notes of the network in sendfile's times, want $want"
		exit 1
	fi
done
echo PASS
