#!/bin/bash
# A cut (truncate, ftruncate, an O_TRUNC open, creat, a collapsed range) waits for the reads of
# other threads before it of bytes at or beyond its new length (a sync read, a copy's source,
# an async read: its completion, or its request when the trace reaps it after the cut):
# otherwise, as fast as possible, the cut ran first and the read came out short. /d/f was
# there before the capture (1 MiB + 4 KiB, as far as it was read). Thread 102 opens it, does
# 20000 other ops, then reads [1 MiB, 1 MiB + 4 KiB); thread 101 cuts the file after that read,
# which it reaches at once.
source "$(dirname "$0")/lib.sh"

M=1048576
# FALLOC_FL_COLLAPSE_RANGE: ext4 and xfs, not tmpfs
falloc_ok=1
probe="$T/probe"
head -c 16384 /dev/zero >"$probe" && fallocate -c -o 0 -l 4096 "$probe" 2>/dev/null ||
	falloc_ok=0

# every cut after a pread64; every other read before a truncate to 0
cases=()
for cut in "truncate path=/d/f len=0 ret=0" \
	"truncate path=/d/f len=$((M + 100)) ret=0" \
	"ftruncate fd=4 path=/d/f len=0 ret=0" \
	"openat path=/d/f flags=O_WRONLY|O_TRUNC ret=5" \
	"creat path=/d/f mode=0644 ret=5" \
	"fallocate fd=4 path=/d/f mode=0x8 off=0 len=$M ret=0"; do
	case $cut in
	fallocate*) [ $falloc_ok = 1 ] || {
		echo "skipped: fallocate COLLAPSE_RANGE (not supported under $T)"
		continue
	} ;;
	esac
	cases+=("pread64:$cut")
done
for read in sendfile uring aio uring-reaped; do
	cases+=("$read:truncate path=/d/f len=0 ret=0")
done

for c in "${cases[@]}"; do
	read=${c%%:*} cut=${c#*:} req= reaped=30200
	case $read in
	pread64) r="pread64 fd=3 path=/d/f off=$M len=4096 ret=4096" ;;
	sendfile) r="sendfile fd=3 fd2=6 path=/d/f path2=/d/g off=$M len=4096 aux=0 mode=1 ret=4096" ;;
	uring) req="fd=3 ctx=9 aux=1 subop=22 off=$M len=4096" ;;  # IORING_OP_READ
	aio) req="fd=3 ctx=0x77 aux=1 subop=0 off=$M len=4096" ;; # IOCB_CMD_PREAD
	uring-reaped) req="fd=3 ctx=9 aux=1 subop=22 off=$M len=4096" reaped=30050 ;;
	esac
	{
		echo "100 101 0 0 openat path=/d/f flags=O_RDWR ret=4"
		echo "100 102 0 1 openat path=/d/f flags=O_RDONLY ret=3"
		[ $read = sendfile ] &&
			echo "100 102 1 1 openat path=/d/g flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=6"
		seq 2 20001 | sed 's/.*/100 102 & & stat path=\/x ret=-ENOENT/'
		# an async read reaped before the cut, or after it (in flight, but done before it:
		# it read 4 KiB)
		if [ -n "$req" ]; then
			echo "100 102 30001 30001 ${read%-*}_submit path=/d/f $req ret=1"
			[ $reaped -lt 30100 ] &&
				echo "100 102 30001 $reaped ${read%-*}_complete path=/d/f $req ret=4096"
		else
			echo "100 102 30001 30002 $r"
		fi
		echo "100 101 30100 30101 $cut"
		[ -n "$req" ] && [ $reaped -gt 30100 ] &&
			echo "100 102 30001 $reaped ${read%-*}_complete path=/d/f $req ret=4096"
		[ $read = sendfile ] && echo "100 102 30300 30300 close fd=6 ret=0"
		echo "100 102 30300 30300 close fd=3 ret=0"
		echo "100 101 30300 30300 close fd=4 ret=0"
		case $cut in
		openat* | creat*) echo "100 101 30301 30301 close fd=5 ret=0" ;;
		esac
	} | mk t
	for mode in afap think; do
		what="${cut%% *} after $read"
		replay_as_traced $mode "$what: the cut ran before the read"
		# the summary does not count a short async read as an outcome that differs
		[ -z "$req" ] || "$IOREEL" dump --format jsonl "$T/r.reel" |
			grep '_complete' | grep -q '"ret":4096,' ||
			fail "timing $mode, $what: the async read came out short (the cut ran first)"
	done
done
echo PASS
