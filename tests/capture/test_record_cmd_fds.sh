#!/bin/bash
# ioreel record -- CMD holds the command before its exec and reads its fds from /proc: the
# capture.fd_sizes (and _fd_flags) meta lists the files the command has after the exec, not
# the recorder's own close-on-exec fds the held child still had (the trace being written:
# "PID:19:16" in every trace recorded so, the command having no fd 19).
source "$(dirname "$0")/lib.sh"
printf 12345 > "$dir/inherited"
exec 7<"$dir/inherited" # not close-on-exec: the command has it
# what the command inherits through the recorder: this shell's files without O_CLOEXEC
# (stdin, stdout and stderr go to /dev/null)
want=
for f in /proc/$$/fdinfo/*; do
	n=${f##*/}
	[ "$n" -gt 2 ] && [ -f "/proc/$$/fd/$n" ] || continue
	flags=$(sed -n 's/^flags:[[:space:]]*//p' "$f")
	(((8#$flags) & 8#2000000)) || want="$want $n"
done
"$IOREEL" record -q -o "$dir/t.reel" -- true </dev/null >/dev/null 2>&1 ||
	{ echo "FAIL: record exited $?"; exit 1; }
exec 7<&-
sizes=$("$IOREEL" info "$dir/t.reel" | sed -n 's/^  capture\.fd_sizes *//p')
pid=$("$IOREEL" info "$dir/t.reel" | sed -n 's/^  pids *//p')
got=$(for e in $sizes; do e=${e#"$pid":}; echo -n " ${e%%:*}"; done)
[ "$(echo $got | tr ' ' '\n' | sort -n)" = "$(echo $want | tr ' ' '\n' | sort -n)" ] || {
	echo "FAIL: capture.fd_sizes '$sizes' has fds '$got', the command has '$want'"
	exit 1
}
case " $sizes " in
*" $pid:7:5 "*) ;;
*) echo "FAIL: capture.fd_sizes '$sizes' without fd 7, 5 bytes"; exit 1 ;;
esac
echo PASS
