#!/bin/bash
# A replay times each op in user space around the syscall, the recording at the syscall
# tracepoints inside it: a replayed op carries the syscall's entry and exit (~1 us on a VM
# with pti), so PostgreSQL's 0.3 us lseek replays as 1.4 us with nothing changed. The verdict
# says so, with the cost the replay measured (meta replay.syscall_ns), naming the op types
# short enough for it to matter (a 1 us lseek) and not the others: a 50 us pwrite64, nor a short
# fstat that got faster (it needs no excuse). No note when
# the original is not a recording (strace's times are its own), nor without the meta.
# usage: report_syscall_cost_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup syscall_cost "$@"

spec() { # spec MODE TOOL SYSCALL_NS
	local lseek=1 pwrite=50 fstat=3 s="" # µs
	echo "meta tool $2"
	if [ "$1" = replay ]; then
		lseek=2 pwrite=51 fstat=1
		[ -n "$3" ] && echo "meta replay.syscall_ns $3"
	fi
	for i in $(seq 0 49); do
		[ "$1" = replay ] && s=" sched=$((i * 100))"
		echo "100 100 $((i * 100)) $((i * 100 + lseek)) lseek fd=3 path=/srv/f" \
			"off=0 ret=0$s"
		echo "100 100 $((i * 100 + 10)) $((i * 100 + 10 + pwrite)) pwrite64 fd=3" \
			"path=/srv/f off=$((i * 4096)) len=4096 ret=4096$s"
		echo "100 100 $((i * 100 + 70)) $((i * 100 + 70 + fstat)) fstat fd=3 path=/srv/f ret=0$s"
	done
}
note="each op's time includes the syscall's entry and exit"
check() { # check TOOL SYSCALL_NS WANT
	spec original "$1" >"$T/o.txt"
	spec replay "ioreel replay 0.1" "$2" >"$T/r.txt"
	mk_pair
	"$IOREEL" report "$T/o.reel" "$T/r.reel" >"$T/out" 2>&1 || { cat "$T/out"; exit 1; }
	n=$(grep -c "$note" "$T/out")
	if [ "$n" != "$3" ]; then
		sed -n '/^verdict/,$p' "$T/out"
		echo "FAIL: original by '$1', replay.syscall_ns '$2': $n notes, want $3"
		exit 1
	fi
}
check "ioreel record 0.1" 1100 1
grep -q "$note, 1.10 µs there (a getppid timed the same way).*: lseek (original p50 under 4x that)" \
	"$T/out" || { sed -n '/^verdict/,$p' "$T/out"; echo "FAIL: the note's cost or op types"; exit 1; }
check "ioreel import strace" 1100 0
check "ioreel record 0.1" "" 0
echo PASS
