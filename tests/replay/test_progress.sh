#!/bin/bash
# On a terminal (stderr a tty), a progress line (ops done, lateness, time left) is redrawn
# at most 4 times a second; off a terminal there is none.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || exit 77

{
	echo "100 100 0 10 openat path=/d/a flags=O_RDONLY ret=3"
	for i in $(seq 1 30); do
		echo "100 100 $((i * 40000)) $((i * 40000 + 10)) pread64 fd=3 off=0 len=4096 ret=4096"
	done
	echo "100 100 1300000 1300010 close fd=3 ret=0"
} | mk t
script -qfec "'$IOREEL' replay '$T/t.reel' --target '$T/tgt' -o '$T/r.reel' -q" /dev/null \
	>"$T/tty.out" 2>&1 || fail "replay on a pty: $(cat "$T/tty.out")"
n=$(grep -o $'\r\033\[K[0-9]*/32 ops' "$T/tty.out" | wc -l)
[ "$n" -ge 2 ] || fail "want progress lines on a terminal, got $n: $(cat -v "$T/tty.out")"
[ "$n" -le 7 ] || fail "progress redrawn $n times in 1.3 s: more than 4 a second"
grep -q "left [0-9.]*s" "$T/tty.out" || fail "no time left shown"
grep -q "late [0-9]*us" "$T/tty.out" || fail "no lateness shown"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" -q 2>"$T/err" || fail "replay"
! grep -q $'\r' "$T/err" || fail "progress written off a terminal"
echo PASS
