#!/bin/bash
# Real programs that copy inside the kernel: "cp" (coreutils 9 uses copy_file_range, NULL
# offsets: the fds' positions) and Python's shutil.copyfile (sendfile with an offset pointer)
# of a 1 MiB file. Each copy op must name both files and fds, its positions must follow on
# from the one before (source and destination) and add up to the file, "ioreel info" must
# count the bytes as read and as written. Then cp to tmpfs, across file systems: the kernel
# refuses (EXDEV), the failed copy_file_range is recorded (required whenever strace shows cp
# issued it) and cp's read/write fallback counted.
source "$(dirname "$0")/lib.sh"
shm=$(mktemp -d /dev/shm/ioreel-capture.XXXXXX) || exit 1
trap 'rm -rf "$dir" "$shm"' EXIT

size=$((1 << 20))
head -c $size /dev/urandom > "$dir/src" || exit 1
fail=0

# Which syscall this machine's copier really uses, from strace when there is one: a copier
# that does not use it is no test of its capture.
uses() { # SYSCALL CMD...: 0 if CMD issues SYSCALL (or strace is missing: assume it does)
	local sc=$1
	shift
	command -v strace > /dev/null || return 0
	strace -f -qq -e trace="$sc" -o "$dir/strace.out" "$@" || return 0
	grep -q "$sc(" "$dir/strace.out"
}

# check TRACE SYSCALL SRC DST: the copy ops of one copy, checked against FORMAT.md
check() {
	"$PRINT" "$1" > "$1.txt" || { echo "FAIL: $1 unreadable"; return 1; }
	"$IOREEL" info "$1" --json > "$1.json" || { echo "FAIL: ioreel info $1"; return 1; }
	python3 - "$1.txt" "$1.json" "$2" "$3" "$4" $size << 'EOF'
import json, sys
ops_txt, info_json, sc, src, dst, size = sys.argv[1:7]
size = int(size)
ops = []
for line in open(ops_txt):
    if line.startswith("op="):
        ops.append(dict(kv.split("=", 1) for kv in line.split()))
bad = []
# the fds cp or python got for the two files
fd_src = [int(o["ret"]) for o in ops if o["op"] == "openat" and o["path"] == src
          and int(o["ret"]) >= 0]
fd_dst = [int(o["ret"]) for o in ops if o["op"] == "openat" and o["path"] == dst
          and int(o["ret"]) >= 0]
copies = sorted((o for o in ops if o["op"] == sc), key=lambda o: int(o["start"]))
if not copies:
    bad.append("no %s op in the trace" % sc)
pos = 0
for o in copies:
    want = {"kind": "reg", "path": src, "path2": dst, "flags": "0"}
    if sc == "sendfile":
        want["mode"] = "01"  # the destination's fd kind: reg (printed in octal)
    for k, v in want.items():
        if o[k] != v:
            bad.append("%s: %s %s, want %s" % (sc, k, o[k], v))
    if not fd_src or int(o["fd"]) != fd_src[-1] or not fd_dst or int(o["fd2"]) != fd_dst[-1]:
        bad.append("%s: fd %s fd2 %s, the files were opened as %s and %s" % (
            sc, o["fd"], o["fd2"], fd_src, fd_dst))
    # each copy goes on where the one before ended, in the source and in the destination
    if int(o["offset"]) != pos or int(o["aux"]) != pos:
        bad.append("%s: offset %s aux %s, want %d (the bytes copied before it)" % (
            sc, o["offset"], o["aux"], pos))
    if int(o["len"]) <= 0 or int(o["ret"]) < 0 or int(o["ret"]) > int(o["len"]):
        bad.append("%s: len %s ret %s" % (sc, o["len"], o["ret"]))
    pos += max(int(o["ret"]), 0)
if copies and pos != size:
    bad.append("%s: %d bytes copied in all, the file has %d" % (sc, pos, size))
if copies and int(copies[-1]["ret"]) != 0:
    bad.append("%s: the last copy returned %s, not 0 (end of file)" % (sc, copies[-1]["ret"]))
info = json.load(open(info_json))
for k in ("bytes_read", "bytes_written"):
    if info[k] < size:
        bad.append("ioreel info: %s %d, less than the %d bytes copied" % (k, info[k], size))
if str(info.get("lost_events")) != "0":
    bad.append("lost events: %s" % info.get("lost_events"))
for b in bad:
    print("FAIL: " + b)
print("%s: %d ops, %d bytes copied, info read %d written %d" % (
    sc, len(copies), pos, info["bytes_read"], info["bytes_written"]))
sys.exit(1 if bad else 0)
EOF
}

if uses copy_file_range cp "$dir/src" "$dir/probe"; then
	"$IOREEL" record -q -o "$dir/cp.reel" -- cp "$dir/src" "$dir/cp.dst" ||
		{ echo "FAIL: record cp exited $?"; exit 1; }
	cmp -s "$dir/src" "$dir/cp.dst" || { echo "FAIL: cp under record copied wrong"; fail=1; }
	check "$dir/cp.reel" copy_file_range "$dir/src" "$dir/cp.dst" || fail=1
	# replayed beneath a target (src prepared from the trace, with other bytes): the copy
	# is made again, as long as the original, and every op ends as it did
	"$IOREEL" replay "$dir/cp.reel" --target "$dir/tgt" --timing afap > "$dir/replay.out" 2>&1 ||
		{ echo "FAIL: replay of cp exited $?"; cat "$dir/replay.out"; exit 1; }
	grep -q "outcomes differing from the original: 0$" "$dir/replay.out" ||
		{ echo "FAIL: replay of cp: outcomes differ"; cat "$dir/replay.out"; fail=1; }
	[ "$(stat -c %s "$dir/tgt$dir/cp.dst")" = $size ] ||
		{ echo "FAIL: replayed copy is $(stat -c %s "$dir/tgt$dir/cp.dst") bytes, want $size"; fail=1; }
	cmp -s "$dir/tgt$dir/src" "$dir/tgt$dir/cp.dst" ||
		{ echo "FAIL: the replayed copy differs from the prepared source"; fail=1; }
else
	echo "note: this cp does not use copy_file_range: not checked"
fi

py=(python3 -c 'import shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2])')
if uses sendfile "${py[@]}" "$dir/src" "$dir/probe2"; then
	"$IOREEL" record -q -o "$dir/py.reel" -- "${py[@]}" "$dir/src" "$dir/py.dst" ||
		{ echo "FAIL: record python exited $?"; exit 1; }
	cmp -s "$dir/src" "$dir/py.dst" || { echo "FAIL: python under record copied wrong"; fail=1; }
	check "$dir/py.reel" sendfile "$dir/src" "$dir/py.dst" || fail=1
else
	echo "note: this python's shutil does not use sendfile: not checked"
fi

# across file systems: copy_file_range fails with EXDEV, cp reads and writes instead. What
# this cp really does there, from strace: a failed copy it issued must be in the trace (a
# capturer that dropped failed copies would pass a check made only when one was recorded).
xdev=unknown
if command -v strace > /dev/null; then
	strace -f -qq -e trace=copy_file_range -o "$dir/x.strace" cp "$dir/src" "$shm/probe" ||
		{ echo "FAIL: cp to tmpfs under strace exited $?"; exit 1; }
	if grep -q '^[0-9 ]*copy_file_range(.* = -1 EXDEV' "$dir/x.strace"; then
		xdev=exdev
	elif grep -q '^[0-9 ]*copy_file_range(' "$dir/x.strace"; then
		xdev=other
	else
		xdev=none
	fi
fi
"$IOREEL" record -q -o "$dir/x.reel" -- cp "$dir/src" "$shm/x.dst" ||
	{ echo "FAIL: record cp to tmpfs exited $?"; exit 1; }
"$PRINT" "$dir/x.reel" > "$dir/x.txt" || { echo "FAIL: x.reel unreadable"; exit 1; }
exdev_op() { grep -Eq "^op=copy_file_range .* path=$dir/src path2=$shm/x.dst .* ret=-18 " "$dir/x.txt"; }
case $xdev in
exdev)
	exdev_op || { echo "FAIL: cp across file systems: its copy_file_range (-EXDEV under strace) is not recorded as -EXDEV"; fail=1; } ;;
other)
	grep -q "^op=copy_file_range " "$dir/x.txt" ||
		{ echo "FAIL: cp across file systems issued copy_file_range, none recorded"; fail=1; } ;;
none)
	echo "note: this cp issues no copy_file_range across file systems: not checked" ;;
*)
	# no strace: only what was recorded can be checked
	! grep -q "^op=copy_file_range " "$dir/x.txt" || exdev_op ||
		{ echo "FAIL: cp across file systems: its copy_file_range is not recorded as -EXDEV"; fail=1; } ;;
esac
"$IOREEL" info "$dir/x.reel" --json | python3 -c '
import json, sys
i = json.load(sys.stdin)
ok = i["bytes_read"] >= int(sys.argv[1]) and i["bytes_written"] >= int(sys.argv[1])
print("cp to tmpfs: info read %d written %d" % (i["bytes_read"], i["bytes_written"]))
sys.exit(0 if ok else 1)' $size || { echo "FAIL: cp to tmpfs: fewer bytes than the file"; fail=1; }

[ $fail = 0 ] && echo "PASS"
exit $fail
