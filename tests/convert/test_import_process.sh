#!/bin/bash
# ioreel import strace writes the process records of format 1.4: fork (the parent's, for
# fork, vfork, clone and clone3 without CLONE_THREAD: ret = the child's pid or -errno, flags =
# CLONE_FILES), execve (one that returned 0) and exit (when the process's last line is a
# "+++" one: ret = the wait status; at the start of its exit_group or last exit call, else
# at that line). A thread's clone has none; nor has a failed exec, nor a process
# still alive at the log's end. The fork comes before every op of the child, also when the
# child's lines come before its parent's clone returns; no op of a process comes after its
# exit. First hand-written logs checked op by op, then REAL strace runs of a shell (children
# through vfork and clone, a subshell's exit 3) and of a multi-threaded python3 (a thread's
# execve that strace shows as superseded, in -f and -ff logs; an exit_group with threads
# alive).
set -u
IOREEL=$1
dir=$(mktemp -d /var/tmp/ioreel-convert-process.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/a.strace" <<'LOG'
5000  1700000000.000000 execve("/bin/app", ["app"], 0x7ffc0 /* 3 vars */) = 0 <0.000100>
5000  1700000000.001000 execve("/nonexistent", ["x"], 0x7ffc0 /* 3 vars */) = -1 ENOENT (No such file or directory) <0.000050>
5000  1700000000.002000 openat(AT_FDCWD</w>, "/w/a", O_RDONLY) = 3</w/a> <0.000010>
5000  1700000000.003000 fork() = 5001 <0.000200>
5001  1700000000.003500 read(3</w/a>, "x", 1) = 1 <0.000010>
5001  1700000000.004000 exit_group(3)   = ?
5001  1700000000.004100 +++ exited with 3 +++
5000  1700000000.005000 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=5001, si_uid=0, si_status=3, si_utime=0, si_stime=0} ---
5000  1700000000.006000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>
5002  1700000000.006300 read(3</w/a>, "y", 1) = 1 <0.000010>
5000  1700000000.006500 <... clone resumed>, child_tidptr=0x7f00) = 5002 <0.000600>
5002  1700000000.007000 exit_group(0)   = ?
5002  1700000000.007100 +++ exited with 0 +++
5000  1700000000.008000 clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f0000000000, stack_size=0x9000}, 88 <unfinished ...>
5003  1700000000.008200 execve("/bin/tool", ["tool"], 0x7ffc0 /* 3 vars */) = 0 <0.000300>
5000  1700000000.008600 <... clone3 resumed>) = 5003 <0.000600>
5003  1700000000.009000 openat(AT_FDCWD</w>, "/w/b", O_RDONLY) = 4</w/b> <0.000010>
5003  1700000000.010000 +++ killed by SIGKILL +++
5000  1700000000.011000 vfork( <unfinished ...>
5004  1700000000.011200 execve("/bin/daemon", ["daemon"], 0x7ffc0 /* 3 vars */) = 0 <0.000300>
5000  1700000000.011600 <... vfork resumed>) = 5004 <0.000600>
5004  1700000000.012000 openat(AT_FDCWD</w>, "/w/c", O_RDONLY) = 3</w/c> <0.000010>
5000  1700000000.013000 clone(child_stack=0x7f0000100000, flags=CLONE_FILES|SIGCHLD) = 5005 <0.000100>
5005  1700000000.013500 close(3</w/a>) = 0 <0.000010>
5005  1700000000.014000 +++ killed by SIGSEGV (core dumped) +++
5000  1700000000.015000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = -1 EAGAIN (Resource temporarily unavailable) <0.000020>
5000  1700000000.015500 fork()          = -1 ENOMEM (Cannot allocate memory) <0.000020>
5000  1700000000.015800 fork()          = 5009 <0.000100>
5009  1700000000.015900 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, tls=0x7f00) = 5010 <0.000050>
5009  1700000000.015950 pause( <unfinished ...>
5010  1700000000.016000 execve("/bin/next", ["next"], 0x7ffc0 /* 3 vars */ <unfinished ...>
5009  1700000000.016050 <... pause resumed>) = ?
5009  1700000000.016100 +++ superseded by execve in pid 5010 +++
5009  1700000000.016150 <... execve resumed>) = 0 <0.000150>
5009  1700000000.016200 fstat(3</w/a>, {st_mode=S_IFREG|0644, st_size=10, ...}) = 0 <0.000010>
5009  1700000000.016300 +++ exited with 0 +++
5000  1700000000.016400 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f00, parent_tid=0x7f00, exit_signal=0, stack=0x7f00, stack_size=0x7fff80, tls=0x7f00} => {parent_tid=[5006]}, 88) = 5006 <0.000050>
5000  1700000000.016500 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, tls=0x7f00) = 5007 <0.000050>
5000  1700000000.016800 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x7f00, stack_size=0x7fff80}, 88) = -1 EAGAIN (Resource temporarily unavailable) <0.000020>
5006  1700000000.017000 read(3</w/a>, "z", 1) = 1 <0.000010>
5007  1700000000.017500 fork()          = 5008 <0.000100>
5008  1700000000.017800 +++ exited with 0 +++
5000  1700000000.017900 futex(0x7f00, FUTEX_WAIT, 2, NULL <unfinished ...>
5006  1700000000.018000 exit(0)         = ?
5006  1700000000.018100 +++ exited with 0 +++
5007  1700000000.019000 read(3</w/a>, "w", 1) = 1 <0.000010>
5007  1700000000.020000 exit_group(7 <unfinished ...>
5000  1700000000.020050 <... futex resumed>) = ?
5007  1700000000.020100 <... exit_group resumed>) = ?
5007  1700000000.020200 +++ exited with 7 +++
5000  1700000000.020300 +++ exited with 7 +++
LOG
# stderr's form: the initial process's lines without a pid column
cat > "$dir/b.strace" <<'LOG'
1700000000.000000 execve("/bin/sh", ["sh"], 0x7ffc0 /* 3 vars */) = 0 <0.000100>
1700000000.001000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 6001 <0.000100>
strace: Process 6001 attached
[pid  6001] 1700000000.002000 openat(AT_FDCWD</w>, "/w/f", O_RDONLY) = 3</w/f> <0.000010>
[pid  6000] 1700000000.002500 wait4(-1,  <unfinished ...>
[pid  6001] 1700000000.003000 +++ exited with 1 +++
1700000000.003500 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 1}], 0, NULL) = 6001 <0.001000>
1700000000.004000 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=6001, si_uid=0, si_status=1, si_utime=0, si_stime=0} ---
1700000000.005000 exit_group(0)                    = ?
1700000000.005100 +++ exited with 0 +++
LOG
for t in a b; do
	"$IOREEL" import strace "$dir/$t.strace" -o "$dir/$t.reel" 2> "$dir/$t.err" ||
		{ echo "FAIL: import of the hand-written log $t"; cat "$dir/$t.err"; exit 1; }
	! grep -q 'could not be parsed' "$dir/$t.err" || { echo "FAIL: $t: bad lines:"; cat "$dir/$t.err"; exit 1; }
	"$IOREEL" dump --format jsonl "$dir/$t.reel" > "$dir/$t.jsonl" || { echo "FAIL: dump $t"; exit 1; }
	"$IOREEL" info --json "$dir/$t.reel" > "$dir/$t.info" || { echo "FAIL: info $t"; exit 1; }
done
python3 - "$dir" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
fail = 0
us = 1000
def check(name, got, want):
    global fail
    if [o["op"] for o in got] != [w["op"] for w in want]:
        print("FAIL: %s: ops %s\n  want %s" % (name, [o["op"] for o in got], [w["op"] for w in want]))
        fail = 1
        return
    for i, (o, w) in enumerate(zip(got, want)):
        full = dict(fd=-1, fd2=-1, path=None, flags=0, ret=0)
        if w["op"] in ("fork", "execve", "exit"):
            full.update(fd_kind="unknown", start_ns=w.get("at"), end_ns=w.get("at"))
        full.update(w)
        full.pop("at", None)
        for k, v in full.items():
            if v is not None or k == "path":
                if o[k] != v:
                    print("FAIL: %s op %d (%s) %s = %r, want %r" % (name, i, w["op"], k, o[k], v))
                    fail = 1
# in trace order (the order written), every field of the process records
a = [json.loads(l) for l in open(d + "/a.jsonl")]
check("a", a, [
    # the first exec; the failed one has none
    dict(op="execve", pid=5000, tid=5000, at=100 * us),
    dict(op="openat", pid=5000, tid=5000, fd=-100, path="/w/a", ret=3),
    # fork(): at its return
    dict(op="fork", pid=5000, tid=5000, ret=5001, at=3200 * us),
    dict(op="read", pid=5001, tid=5001, fd=3, path="/w/a", ret=1),
    # exits are stamped where the process began to exit: its exit_group's start, not
    # the "+++" line after it (a waiter's lock, released by that exit, may resume between)
    dict(op="exit", pid=5001, tid=5001, ret=3 << 8, at=4000 * us),
    # the child's line came before its parent's clone returned: the fork before it, then
    dict(op="fork", pid=5000, tid=5000, ret=5002, at=6300 * us),
    dict(op="read", pid=5002, tid=5002, fd=3, path="/w/a", ret=1),
    dict(op="exit", pid=5002, tid=5002, ret=0, at=7000 * us),
    # posix_spawn's clone3(CLONE_VM|CLONE_VFORK): the child execs before the parent resumes
    dict(op="fork", pid=5000, tid=5000, ret=5003, at=8200 * us),
    dict(op="execve", pid=5003, tid=5003, at=8500 * us),
    dict(op="openat", pid=5003, tid=5003, fd=-100, path="/w/b", ret=4),
    dict(op="exit", pid=5003, tid=5003, ret=9, at=10000 * us),
    # vfork; the child is alive at the log's end: no exit
    dict(op="fork", pid=5000, tid=5000, ret=5004, at=11200 * us),
    dict(op="execve", pid=5004, tid=5004, at=11500 * us),
    dict(op="openat", pid=5004, tid=5004, fd=-100, path="/w/c", ret=3),
    # CLONE_FILES: the child shares the table; SIGSEGV with a core: 11 | 0x80
    dict(op="fork", pid=5000, tid=5000, ret=5005, flags=0x400, at=13100 * us),
    dict(op="close", pid=5005, tid=5005, fd=3, path="/w/a", ret=0),
    dict(op="exit", pid=5005, tid=5005, ret=11 | 0x80, at=14000 * us),
    # failed forks: ret = -errno, at their return
    dict(op="fork", pid=5000, tid=5000, ret=-11, at=15020 * us),
    dict(op="fork", pid=5000, tid=5000, ret=-12, at=15520 * us),
    dict(op="fork", pid=5000, tid=5000, ret=5009, at=15900 * us),
    # 5009's thread 5010 execs: it resumes as 5009 (superseded); its thread clone: no op
    dict(op="execve", pid=5009, tid=5009, at=16150 * us),
    # fd 3 came with the fork; the exec kept it (no O_CLOEXEC)
    dict(op="fstat", pid=5009, tid=5009, fd=3, path="/w/a", ret=0),
    # the superseded line is no exit; 5009's own "+++" line is
    dict(op="exit", pid=5009, tid=5009, ret=0, at=16300 * us),
    # threads 5006 and 5007: no op for their clones, nor for the one that failed
    dict(op="read", pid=5000, tid=5006, fd=3, path="/w/a", ret=1),
    # a thread's fork: the process's record, by that thread
    dict(op="fork", pid=5000, tid=5007, ret=5008, at=17600 * us),
    dict(op="exit", pid=5008, tid=5008, ret=0, at=17800 * us),
    dict(op="read", pid=5000, tid=5007, fd=3, path="/w/a", ret=1),
    # the threads end in turn (5006, 5007, then the leader 5000): one exit, at the last
    # one's start of ending: 5007's exit_group (5006's exit is no end: 5007 went on)
    dict(op="exit", pid=5000, tid=5000, ret=7 << 8, at=20000 * us),
])
# no op of a process after its exit; each fork before its child's first op
seen_exit, forked = {}, set()
for i, o in enumerate(a):
    if o["pid"] in seen_exit:
        print("FAIL: a: op %d (%s) of %d after its exit" % (i, o["op"], o["pid"])); fail = 1
    if o["op"] == "exit":
        seen_exit[o["pid"]] = i
    if o["op"] == "fork" and o["ret"] > 0:
        forked.add(o["ret"])
    if o["pid"] != 5000 and o["pid"] not in forked:
        print("FAIL: a: op %d (%s) of %d before its fork" % (i, o["op"], o["pid"])); fail = 1
ia = json.load(open(d + "/a.info"))
for op, n in dict(fork=9, execve=4, exit=7).items():
    got = ia["ops_by_type"].get(op, {}).get("count", 0)
    if got != n:
        print("FAIL: info a: %d %s ops, want %d" % (got, op, n)); fail = 1
b = [json.loads(l) for l in open(d + "/b.jsonl")]
check("b", b, [
    dict(op="execve", pid=6000, tid=6000, at=100 * us),
    dict(op="fork", pid=6000, tid=6000, ret=6001, at=1100 * us),
    dict(op="openat", pid=6001, tid=6001, fd=-100, path="/w/f", ret=3),
    dict(op="exit", pid=6001, tid=6001, ret=1 << 8, at=3000 * us),
    # at its exit_group; 6001 and the killed ones have no exit call: at their "+++" line
    dict(op="exit", pid=6000, tid=6000, ret=0, at=5000 * us),
])
sys.exit(fail)
PY
[ $? = 0 ] || exit 1

# Real strace runs.
command -v strace > /dev/null || { echo "SKIP: the hand-written logs passed; strace missing"; exit 77; }
strace -f -o /dev/null true 2> "$dir/probe.err" ||
	{ echo "SKIP: the hand-written logs passed; strace cannot trace here: $(head -1 "$dir/probe.err")"; exit 77; }

# a shell: cat through vfork (dash) or clone (bash), a subshell that exits 3
(cd "$dir" && strace -f -ttt -T -y -o "$dir/s.strace" sh -c 'cat /etc/hostname >/dev/null; (exit 3); true') ||
	{ echo "FAIL: sh under strace"; exit 1; }
"$IOREEL" import strace "$dir/s.strace" -o "$dir/s.reel" 2> "$dir/s.err" ||
	{ echo "FAIL: import of the sh log"; cat "$dir/s.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/s.reel" > "$dir/s.jsonl" || { echo "FAIL: dump sh"; exit 1; }

# python3 threads: one execs /bin/true (strace: "superseded by execve"), while the main
# thread waits; then threads sleeping while the main thread's os._exit(2) ends them all
cat > "$dir/t.py" <<'PY'
import os, sys, threading, time
def run():
    time.sleep(0.02)
    if sys.argv[1] == "exec":
        os.execv("/bin/true", ["true"])
    time.sleep(5)
ts = [threading.Thread(target=run, daemon=True) for _ in range(2)]
for t in ts:
    t.start()
if sys.argv[1] == "exec":
    time.sleep(5)
time.sleep(0.05)
os._exit(2)
PY
# the interpreter itself, not a wrapper script (pyenv's shims exec a few programs first)
py=$(python3 -c 'import sys; print(sys.executable)')
for m in exec group; do
	strace -f -ttt -T -y -o "$dir/p$m.strace" "$py" "$dir/t.py" $m
	"$IOREEL" import strace "$dir/p$m.strace" -o "$dir/p$m.reel" 2> "$dir/p$m.err" ||
		{ echo "FAIL: import of the python3 $m log"; cat "$dir/p$m.err"; exit 1; }
	"$IOREEL" dump --format jsonl "$dir/p$m.reel" > "$dir/p$m.jsonl" ||
		{ echo "FAIL: dump python3 $m"; exit 1; }
done
grep -q 'superseded by execve' "$dir/pexec.strace" ||
	{ echo "FAIL: strace showed no superseded execve: nothing tested it"; exit 1; }
# strace -ff: the thread's file ends with "execve(...) <pid changed to TGID ...>", and the
# tgid's goes on with "+++ superseded ..." and "<... execve resumed>"
mkdir "$dir/ff"
strace -ff -ttt -T -y -o "$dir/ff/p" "$py" "$dir/t.py" exec
"$IOREEL" import strace "$dir"/ff/p.* -o "$dir/pff.reel" 2> "$dir/pff.err" ||
	{ echo "FAIL: import of the python3 -ff logs"; cat "$dir/pff.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/pff.reel" > "$dir/pff.jsonl" || { echo "FAIL: dump python3 -ff"; exit 1; }
cat "$dir"/ff/p.* > "$dir/pff.strace"
grep -q 'pid changed to' "$dir/pff.strace" ||
	{ echo "FAIL: strace -ff showed no pid change: nothing tested it"; exit 1; }
for m in exec group ff; do
	! grep -q 'could not be parsed' "$dir/p$m.err" || { echo "FAIL: python3 $m: bad lines:"; cat "$dir/p$m.err"; exit 1; }
done

python3 - "$dir" <<'PY' || exit 1
import json, re, sys
d = sys.argv[1]
fail = 0
def err(msg):
    global fail
    print("FAIL: " + msg); fail = 1
def load(name):
    return [json.loads(l) for l in open(d + "/" + name)]
def common(name, ops):
    """forks before their children's ops, nothing of a process after its exit; the
    processes of the log all there"""
    first, exited, forked = {}, {}, {}
    for i, o in enumerate(ops):
        first.setdefault(o["pid"], i)
        if o["pid"] in exited:
            err("%s: op %d (%s) of %d after its exit" % (name, i, o["op"], o["pid"]))
        if o["op"] in ("fork", "execve", "exit"):
            if o["fd"] != -1 or o["path"] is not None or o["start_ns"] != o["end_ns"]:
                err("%s: op %d: %s" % (name, i, o))
        if o["op"] == "exit":
            exited[o["pid"]] = o
        if o["op"] == "fork" and o["ret"] > 0:
            if o["ret"] in first:
                err("%s: the fork of %d after its first op" % (name, o["ret"]))
            forked[o["ret"]] = o
            first.setdefault(o["ret"], i)
    return first, exited, forked

s = load("s.jsonl")
log = open(d + "/s.strace").read()
first, exited, forked = common("sh", s)
sh = s[0]["pid"]
pids = {int(p) for p in re.findall(r"^(\d+) ", log, re.M)}
if set(forked) != pids - {sh}:
    err("sh: forks of %s, processes of the log other than sh %s" % (sorted(forked),
                                                                sorted(pids - {sh})))
if set(exited) != pids:
    err("sh: exits of %s, processes %s" % (sorted(exited), sorted(pids)))
for c, f in forked.items():
    if f["pid"] != sh or f["tid"] != sh:
        err("sh: fork of %d by %d/%d, not by sh %d" % (c, f["pid"], f["tid"], sh))
    later = [o for o in s if o["pid"] == c and o["op"] != "fork"]
    if later and min(o["start_ns"] for o in later) < f["start_ns"]:
        err("sh: an op of %d starts before its fork" % c)
execs = [o for o in s if o["op"] == "execve"]
cat = [o["pid"] for o in s if o["path"] == "/etc/hostname"]
if [o["pid"] for o in execs][:1] != [sh] or not cat or cat[0] not in [o["pid"] for o in execs]:
    err("sh: execs by %s; sh %d, cat %s" % ([o["pid"] for o in execs], sh, cat[:1]))
st = sorted(o["ret"] for o in exited.values())
if st != sorted([0] * (len(pids) - 1) + [768]):
    err("sh: exit statuses %s, want one 768 (the subshell's exit 3), others 0" % st)
if exited.get(sh) is not s[-1]:
    err("sh: its exit is not the last op")
for p, e in exited.items():
    if e is not [o for o in s if o["pid"] == p][-1]:
        err("sh: the exit of %d is not its last op" % p)

for m in ("exec", "group", "ff"):
        ops = load("p%s.jsonl" % m)
        first, exited, forked = common("python3 " + m, ops)
        py = ops[0]["pid"]
        execs = [o for o in ops if o["op"] == "execve"]
        threads = open(d + "/p%s.strace" % m).read().count("CLONE_THREAD")
        if forked or set(exited) != {py} or threads < 2:
            err("python3 %s: forks %s, exits %s (want one, of %d), %d thread clones" %
                (m, sorted(forked), sorted(exited), py, threads))
            continue
        e = exited[py]
        if m in ("exec", "ff"):
            # the thread's execve, resumed as the tgid
            if [(o["pid"], o["tid"]) for o in execs] != [(py, py)] * 2:
                err("python3 exec: execs %s" % [(o["pid"], o["tid"]) for o in execs])
            if e["ret"] != 0 or e["tid"] != py:
                err("python3 exec: exit %s" % e)
        else:
            if len(execs) != 1 or e["ret"] != 2 << 8 or e["tid"] != py:
                err("python3 group: %d execs, exit %s" % (len(execs), e))
        if e is not ops[-1]:
            err("python3 %s: the exit is not the last op" % m)
sys.exit(fail)
PY
[ $? = 0 ] || exit 1
echo PASS
