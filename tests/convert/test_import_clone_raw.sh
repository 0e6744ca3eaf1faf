#!/bin/bash
# ioreel import strace reads clone and clone3 flags however strace prints them: names
# (CLONE_THREAD|...), numbers (strace -X raw: flags=0x3d0f00, clone's exit signal as |17)
# and both (-X verbose: the number, then the names in a comment). A thread made so is a
# thread of its process (its ops carry the process's pid, no fork or exit record of its own);
# a process sharing its parent's fds (CLONE_FILES, 0x400) has a fork record with flags 0x400.
# A log without any clone line (strace -e trace=%file,%desc) cannot tell threads from
# processes: its pids are taken as processes, and the import says so once on stderr.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 7000 makes thread 7001 (clone3, raw), thread 7002 (clone, verbose), process 7003 (clone,
# raw: a fork), process 7004 sharing its fds (clone, raw, 0x400); a failed thread clone3
cat > "$dir/raw.strace" <<'LOG'
7000  1700000000.000000 openat(AT_FDCWD</w>, "/w/a", O_RDONLY) = 3</w/a> <0.000010>
7000  1700000000.001000 clone3({flags=0x3d0f00, child_tid=0x7f00, parent_tid=0x7f00, exit_signal=0, stack=0x7f00, stack_size=0x7fff80, tls=0x7f00} => {parent_tid=[7001]}, 88) = 7001 <0.000050>
7001  1700000000.002000 read(3</w/a>, "x", 1) = 1 <0.000010>
7000  1700000000.003000 clone(child_stack=0x7f00, flags=0x3d0f00 /* CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID */, tls=0x7f00) = 7002 <0.000050>
7002  1700000000.004000 read(3</w/a>, "y", 1) = 1 <0.000010>
7000  1700000000.005000 clone(child_stack=NULL, flags=0x1200000|17, child_tidptr=0x7f00) = 7003 <0.000100>
7003  1700000000.006000 read(3</w/a>, "z", 1) = 1 <0.000010>
7003  1700000000.006500 exit_group(0)   = ?
7003  1700000000.006600 +++ exited with 0 +++
7000  1700000000.007000 clone(child_stack=0x7f00, flags=0x400|17) = 7004 <0.000100>
7004  1700000000.007500 close(3</w/a>) = 0 <0.000010>
7004  1700000000.007600 +++ exited with 0 +++
7000  1700000000.008000 clone3({flags=0x10f00, exit_signal=0, stack=0x7f00, stack_size=0x7fff80}, 88) = -1 EAGAIN (Resource temporarily unavailable) <0.000020>
7001  1700000000.009000 exit(0)         = ?
7001  1700000000.009100 +++ exited with 0 +++
7002  1700000000.009200 exit(0)         = ?
7002  1700000000.009300 +++ exited with 0 +++
7000  1700000000.010000 exit_group(0)   = ?
7000  1700000000.010100 +++ exited with 0 +++
LOG
"$IOREEL" import strace "$dir/raw.strace" -o "$dir/raw.reel" 2> "$dir/raw.err" ||
	fail "import: $(cat "$dir/raw.err")"
grep -q warning "$dir/raw.err" && fail "a log with its clone lines warned: $(cat "$dir/raw.err")"
"$IOREEL" dump "$dir/raw.reel" --format jsonl > "$dir/raw.jsonl" || fail "dump"
python3 - "$dir/raw.jsonl" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
got = [(o["op"], o["pid"], o["tid"], o["ret"], o["flags"]) for o in ops
       if o["op"] in ("read", "fork", "exit", "close")]
want = [
    ("read", 7000, 7001, 1, 0),   # threads: the process's pid
    ("read", 7000, 7002, 1, 0),
    ("fork", 7000, 7000, 7003, 0),
    ("read", 7003, 7003, 1, 0),
    ("exit", 7003, 7003, 0, 0),
    ("fork", 7000, 7000, 7004, 0x400),
    ("close", 7004, 7004, 0, 0),
    ("exit", 7004, 7004, 0, 0),
    ("exit", 7000, 7000, 0, 0),   # the threads' exits are not the process's
]
if got != want:
    print("FAIL: got\n  %s\nwant\n  %s" % ("\n  ".join(map(str, got)), "\n  ".join(map(str, want))))
    sys.exit(1)
PY

# -e trace=%file,%desc: no clone lines; two pids, which may be threads or processes
cat > "$dir/noclone.strace" <<'LOG'
8000  1700000000.000000 openat(AT_FDCWD</w>, "/w/a", O_RDONLY) = 3</w/a> <0.000010>
8001  1700000000.001000 read(3</w/a>, "x", 1) = 1 <0.000010>
8002  1700000000.002000 read(3</w/a>, "y", 1) = 1 <0.000010>
8001  1700000000.003000 +++ exited with 0 +++
8000  1700000000.004000 read(3</w/a>, "z", 1) = 1 <0.000010>
LOG
"$IOREEL" import strace "$dir/noclone.strace" -o "$dir/noclone.reel" 2> "$dir/noclone.err" ||
	fail "import of a log without clone lines: $(cat "$dir/noclone.err")"
[ "$(grep -c 'warning: .*no clone, fork or vfork lines.*threads and processes cannot be told apart.* 2 pid(s) after the first are taken as processes' "$dir/noclone.err")" = 1 ] ||
	fail "no single warning about the missing clone lines: $(cat "$dir/noclone.err")"
"$IOREEL" dump "$dir/noclone.reel" --format csv | cut -d, -f1-3 | grep -q '^read,8001,8001$' ||
	fail "pid 8001 not taken as a process of its own"
echo PASS
