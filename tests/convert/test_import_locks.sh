#!/bin/bash
# ioreel import strace records file locks (format 1.3): flock, and fcntl's F_GETLK, F_SETLK,
# F_SETLKW and F_OFD_* (the *64 names of fcntl64 too) as fcntl_lock, with the range made
# absolute where the importer knows the fd's position (SEEK_CUR) or the file's size
# (SEEK_END), else kept relative with l_whence in subop; a negative l_len turned forward; a
# get command's found type in aux (strace shows the struct as the kernel filled it); failed
# calls kept with their -errno; calls split in <unfinished ...>/<... resumed> as one op.
# First a hand-written log checked field by field, then REAL strace runs: locks.c, which
# prints the op each of its lock calls must become, and sqlite3 transactions (rollback
# journal and WAL), whose lock calls must all be there with their ranges.
set -u
IOREEL=$1 LOCKS=$4
dir=$(mktemp -d /var/tmp/ioreel-convert-locks.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/h.strace" <<'LOG'
7000  1700000000.000000 openat(AT_FDCWD</w>, "/w/bank.db", O_RDWR|O_CREAT, 0644) = 3</w/bank.db> <0.000010>
7000  1700000000.001000 newfstatat(3</w/bank.db>, "", {st_mode=S_IFREG|0644, st_size=8192, ...}, AT_EMPTY_PATH) = 0 <0.000010>
7000  1700000000.002000 read(3</w/bank.db>, "SQLite format 3\0"..., 100) = 100 <0.000010>
7000  1700000000.003000 fcntl(3</w/bank.db>, F_SETLK, {l_type=F_RDLCK, l_whence=SEEK_SET, l_start=1073741824, l_len=1}) = 0 <0.000005>
7000  1700000000.004000 fcntl(3</w/bank.db>, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=1073741826, l_len=510}) = -1 EAGAIN (Resource temporarily unavailable) <0.000004>
7000  1700000000.005000 fcntl(3</w/bank.db>, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_CUR, l_start=10, l_len=5}) = 0 <0.000004>
7000  1700000000.006000 fcntl(3</w/bank.db>, F_SETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=50, l_len=-20}) = 0 <0.000004>
7000  1700000000.007000 fcntl(3</w/bank.db>, F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_CUR, l_start=0, l_len=-100}) = 0 <0.000004>
7000  1700000000.008000 fcntl(3</w/bank.db>, F_SETLK, {l_type=F_RDLCK, l_whence=SEEK_END, l_start=-10, l_len=0}) = 0 <0.000004>
7000  1700000000.009000 fcntl(3</w/bank.db>, F_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=1073741825, l_len=1, l_pid=0}) = 0 <0.000004>
7000  1700000000.010000 fcntl(3</w/bank.db>, F_GETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=1073741824, l_len=2, l_pid=7001}) = 0 <0.000004>
7000  1700000000.011000 fcntl(3</w/bank.db>, F_OFD_GETLK, {l_type=F_RDLCK, l_whence=SEEK_SET, l_start=0, l_len=1, l_pid=-1}) = 0 <0.000004>
7000  1700000000.012000 fcntl(3</w/bank.db>, F_GETLK, 0x10) = -1 EFAULT (Bad address) <0.000004>
7000  1700000000.013000 fcntl64(3</w/bank.db>, F_SETLK64, {l_type=F_RDLCK, l_whence=SEEK_SET, l_start=4096, l_len=512}) = 0 <0.000004>
7000  1700000000.014000 fcntl64(3</w/bank.db>, F_SETLKW64, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=4096, l_len=512}) = -1 EDEADLK (Resource deadlock avoided) <0.000004>
7000  1700000000.015000 fcntl64(3</w/bank.db>, F_GETLK64, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=0, l_pid=0}) = 0 <0.000004>
7000  1700000000.016000 fcntl(3</w/bank.db>, F_SETLK, {l_type=F_RDLCK, l_whence=SEEK_SET, l_start=0, l_len=1}) = -1 EACCES (Permission denied) <0.000004>
7000  1700000000.017000 fcntl(3</w/bank.db>, F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=1}) = -1 EINTR (Interrupted system call) <0.000004>
7000  1700000000.018000 lseek(3</w/bank.db>, 4000, SEEK_SET) = 4000 <0.000004>
7000  1700000000.019000 fcntl(3</w/bank.db>, F_OFD_SETLK, {l_type=F_RDLCK, l_whence=SEEK_CUR, l_start=96, l_len=4}) = 0 <0.000004>
7000  1700000000.020000 fcntl(3</w/bank.db>, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE) <0.000004>
7000  1700000000.021000 fcntl(3</w/bank.db>, F_DUPFD_CLOEXEC, 10) = 10</w/bank.db> <0.000004>
7000  1700000000.022000 fcntl(10</w/bank.db>, F_OFD_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_CUR, l_start=0, l_len=0}) = 0 <0.000004>
7000  1700000000.023000 openat(AT_FDCWD</w>, "other", O_RDONLY) = 4</w/other> <0.000010>
7000  1700000000.024000 fcntl(4</w/other>, F_SETLK, {l_type=F_RDLCK, l_whence=SEEK_END, l_start=-1, l_len=1}) = 0 <0.000004>
7000  1700000000.025000 fcntl(4</w/other>, F_SETLK, {l_type=F_UNLCK, l_whence=SEEK_END, l_start=0, l_len=-10}) = 0 <0.000004>
7000  1700000000.026000 fcntl(7</w/inherited>, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_CUR, l_start=16, l_len=8}) = 0 <0.000004>
7000  1700000000.027000 flock(3</w/bank.db>, LOCK_SH) = 0 <0.000003>
7000  1700000000.028000 flock(3</w/bank.db>, LOCK_EX|LOCK_NB) = 0 <0.000003>
7000  1700000000.029000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0000000a10) = 7001 <0.000100>
7001  1700000000.030000 openat(AT_FDCWD</w>, "/w/bank.db", O_RDWR) = 5</w/bank.db> <0.000010>
7001  1700000000.031000 flock(5</w/bank.db>, LOCK_EX|LOCK_NB) = -1 EAGAIN (Resource temporarily unavailable) <0.000003>
7000  1700000000.032000 fcntl(3</w/bank.db>, F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=1073741824, l_len=1} <unfinished ...>
7001  1700000000.033000 fcntl(5</w/bank.db>, F_SETLK, {l_type=F_RDLCK, l_whence=SEEK_SET, l_start=1073741826, l_len=510}) = 0 <0.000004>
7001  1700000000.034000 fcntl(5</w/bank.db>, F_GETLK,  <unfinished ...>
7000  1700000000.532000 <... fcntl resumed>) = 0 <0.500000>
7001  1700000000.533000 <... fcntl resumed>{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=1073741824, l_len=1, l_pid=7000}) = 0 <0.499000>
7000  1700000000.534000 fcntl(3</w/bank.db>, F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=0} <unfinished ...>
7001  1700000000.535000 flock(5</w/bank.db>, LOCK_UN) = 0 <0.000003>
7000  1700000000.600000 <... fcntl resumed>) = ? ERESTARTSYS (To be restarted if SA_RESTART is set) <0.066000>
7000  1700000000.601000 --- SIGALRM {si_signo=SIGALRM, si_code=SI_KERNEL} ---
7000  1700000000.602000 rt_sigreturn({mask=[]}) = -1 EINTR (Interrupted system call) <0.000004>
7000  1700000000.603000 flock(3</w/bank.db>, LOCK_UN) = 0 <0.000003>
7000  1700000000.604000 flock(42, LOCK_SH) = -1 EBADF (Bad file descriptor) <0.000003>
7000  1700000000.605000 fcntl(6<socket:[77]>, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=0}) = -1 EINVAL (Invalid argument) <0.000004>
7000  1700000000.606000 flock(6<socket:[77]>, LOCK_EX) = 0 <0.000003>
LOG
"$IOREEL" import strace "$dir/h.strace" -o "$dir/h.reel" 2> "$dir/h.err" ||
	{ echo "FAIL: import of the hand-written log"; cat "$dir/h.err"; exit 1; }
! grep -q 'could not be parsed' "$dir/h.err" || { echo "FAIL: bad lines:"; cat "$dir/h.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/h.reel" > "$dir/h.jsonl" || { echo "FAIL: dump"; exit 1; }
"$IOREEL" info --json "$dir/h.reel" > "$dir/h.info" || { echo "FAIL: info"; exit 1; }
python3 - "$dir" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
ops = [json.loads(l) for l in open(d + "/h.jsonl")]
ops = [o for o in ops if o["op"] in ("flock", "fcntl_lock", "fcntl_dupfd")]
U64 = 1 << 64
SETLK, SETLKW, GETLK, OFD_GETLK, OFD_SETLK, OFD_SETLKW = 6, 7, 5, 36, 37, 38
RD, WR, UN = 0, 1, 2
ms = 1000000
L = "fcntl_lock"
want = [
    dict(op=L, flags=SETLK, mode=RD, offset=1073741824, len=1),
    dict(op=L, flags=SETLK, mode=WR, offset=1073741826, len=510, ret=-11, err="EAGAIN"),
    # SEEK_CUR after the read moved the position to 100
    dict(op=L, flags=SETLK, mode=WR, offset=110, len=5),
    # a negative l_len: the bytes before l_start, forward
    dict(op=L, flags=SETLK, mode=UN, offset=30, len=20),
    dict(op=L, flags=SETLKW, mode=WR, offset=0, len=100),
    # SEEK_END of a file whose size the fstat showed (8192)
    dict(op=L, flags=SETLK, mode=RD, offset=8182, len=0),
    # gets: the type asked is unseen (F_UNLCK), aux = the type found + 1
    dict(op=L, flags=GETLK, mode=UN, aux=UN + 1, offset=1073741825, len=1),
    dict(op=L, flags=GETLK, mode=UN, aux=WR + 1, offset=1073741824, len=2),
    dict(op=L, flags=OFD_GETLK, mode=UN, aux=RD + 1, offset=0, len=1),
    # a failed get: strace shows the address only; nothing found, no range
    dict(op=L, flags=GETLK, mode=UN, ret=-14, err="EFAULT"),
    # fcntl64's *64 names are the plain commands
    dict(op=L, flags=SETLK, mode=RD, offset=4096, len=512),
    dict(op=L, flags=SETLKW, mode=WR, offset=4096, len=512, ret=-35, err="EDEADLK"),
    dict(op=L, flags=GETLK, mode=UN, aux=UN + 1),
    dict(op=L, flags=SETLK, mode=RD, offset=0, len=1, ret=-13, err="EACCES"),
    dict(op=L, flags=SETLKW, mode=WR, offset=0, len=1, ret=-4, err="EINTR"),
    # SEEK_CUR after the lseek to 4000
    dict(op=L, flags=OFD_SETLK, mode=RD, offset=4096, len=4),
    # F_GETFL is no op; F_DUPFD_CLOEXEC still is, and its fd shares the position
    dict(op="fcntl_dupfd", fd2=10, flags=0o2000000, ret=10),
    dict(op=L, fd=10, flags=OFD_SETLKW, mode=WR, offset=4000, len=0),
    # SEEK_END of a file of unknown size: l_start as given, l_whence in subop
    dict(op=L, fd=4, path="/w/other", flags=SETLK, mode=RD, offset=U64 - 1, len=1, subop=2),
    dict(op=L, fd=4, path="/w/other", flags=SETLK, mode=UN, offset=U64 - 10, len=10, subop=2),
    # SEEK_CUR of an fd first seen in use (position unknown)
    dict(op=L, fd=7, path="/w/inherited", flags=SETLK, mode=WR, offset=16, len=8, subop=1),
    dict(op="flock", mode=1),
    dict(op="flock", mode=6),
    dict(op="flock", pid=7001, tid=7001, fd=5, mode=6, ret=-11, err="EAGAIN"),
    # split calls: one op each, from the first half's time, and ordered by that time
    dict(op=L, flags=SETLKW, mode=WR, offset=1073741824, len=1, start_ns=32 * ms,
         end_ns=532 * ms),
    dict(op=L, pid=7001, tid=7001, fd=5, flags=SETLK, mode=RD, offset=1073741826, len=510),
    dict(op=L, pid=7001, tid=7001, fd=5, flags=GETLK, mode=UN, aux=WR + 1,
         offset=1073741824, len=1, start_ns=34 * ms, end_ns=533 * ms),
    dict(op="flock", pid=7001, tid=7001, fd=5, mode=8),
    # "= ? ERESTARTSYS" (its EINTR is rt_sigreturn's): no result, left out as every "= ?"
    dict(op="flock", mode=8),
    # fd 42 was not open: kept, as failed ops on fds are
    dict(op="flock", fd=42, path=None, fd_kind="unknown", mode=1, ret=-9, err="EBADF"),
    # a socket's locks are not file I/O (counted in nonfile_ops)
]
defaults = dict(pid=7000, tid=7000, fd=3, path="/w/bank.db", fd_kind="reg", fd2=-1,
                path2=None, offset=0, len=0, flags=0, mode=0, subop=0, aux=0, ctx=0, ret=0,
                err=None)
fail = 0
ops.sort(key=lambda o: o["start_ns"])
if [o["op"] for o in ops] != [w["op"] for w in want]:
    print("FAIL: ops %s\n  want %s" % ([o["op"] for o in ops], [w["op"] for w in want]))
    sys.exit(1)
for i, (o, w) in enumerate(zip(ops, want)):
    full = dict(defaults); full.update(w)
    for k, v in full.items():
        if o[k] != v:
            print("FAIL: op %d (%s) %s = %r, want %r" % (i, w["op"], k, o[k], v)); fail = 1
meta = json.load(open(d + "/h.info"))["meta"]
if meta.get("nonfile_ops") != "2":
    print("FAIL: nonfile_ops %r, want 2 (the socket's fcntl and flock)" % meta.get("nonfile_ops"))
    fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1

# Real strace runs.
command -v strace > /dev/null || { echo "SKIP: the hand-written log passed; strace missing"; exit 77; }
strace -f -o /dev/null true 2> "$dir/probe.err" ||
	{ echo "SKIP: the hand-written log passed; strace cannot trace here: $(head -1 "$dir/probe.err")"; exit 77; }

strace -f -ttt -T -y -o "$dir/l.strace" "$LOCKS" "$dir/lockfile" > "$dir/l.want" ||
	{ echo "FAIL: locks under strace"; exit 1; }
grep -q '<\.\.\. fcntl resumed>' "$dir/l.strace" ||
	{ echo "FAIL: the child's F_SETLKW was not split in the log: nothing tested it"; exit 1; }
"$IOREEL" import strace "$dir/l.strace" -o "$dir/l.reel" 2> "$dir/l.err" ||
	{ echo "FAIL: import of the locks log"; cat "$dir/l.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/l.reel" > "$dir/l.jsonl" || { echo "FAIL: dump locks"; exit 1; }

# sqlite3: a rollback journal, then WAL (its -shm locks), a few transactions each
if command -v sqlite3 > /dev/null; then
	strace -f -ttt -T -y -o "$dir/s.strace" sqlite3 "$dir/bank.db" \
		"create table t(x); begin; insert into t values(1); insert into t values(2); commit;
		 insert into t values(3); select count(*) from t; pragma journal_mode=wal;
		 begin; insert into t values(4); commit; insert into t values(5);
		 select count(*) from t;" > "$dir/s.out" || { echo "FAIL: sqlite3 under strace"; exit 1; }
	"$IOREEL" import strace "$dir/s.strace" -o "$dir/s.reel" 2> "$dir/s.err" ||
		{ echo "FAIL: import of the sqlite3 log"; cat "$dir/s.err"; exit 1; }
	"$IOREEL" dump --format jsonl "$dir/s.reel" > "$dir/s.jsonl" || { echo "FAIL: dump sqlite3"; exit 1; }
fi

python3 - "$dir" <<'PY' || exit 1
import collections, json, os, re, sys
d = sys.argv[1]
fail = 0
# locks.c: per process, the lock ops in order, every field it printed
want = [json.loads(l) for l in open(d + "/l.want")]
ops = [json.loads(l) for l in open(d + "/l.jsonl")]
ops = [o for o in ops if o["op"] in ("flock", "fcntl_lock")]
for pid in sorted({w["pid"] for w in want}):
    w_ = [w for w in want if w["pid"] == pid]
    o_ = [o for o in ops if o["pid"] == pid]
    if [o["op"] for o in o_] != [w["op"] for w in w_]:
        print("FAIL: locks pid %d: ops %s\n  want %s" % (pid, [o["op"] for o in o_],
                                                       [w["op"] for w in w_]))
        fail = 1
        continue
    for i, (o, w) in enumerate(zip(o_, w_)):
        full = dict(offset=0, len=0, flags=0, mode=0, subop=0, aux=0, tid=pid,
                    fd_kind="reg" if w["path"] else "unknown")
        full.update(w)
        full["path"] = full["path"] or None
        for k, v in full.items():
            if o[k] != v:
                print("FAIL: locks pid %d op %d (%s) %s = %r, want %r" % (pid, i, w["op"], k,
                                                                         o[k], v))
                fail = 1
if len(want) < 20:
    print("FAIL: locks.c expected only %d ops" % len(want)); fail = 1

# sqlite3: every lock call of the log (read with plain regexes, the split ones joined), with
# its command, type and range (all SEEK_SET), and nothing more
if os.path.exists(d + "/s.jsonl"):
    pending, calls = {}, []
    for raw in open(d + "/s.strace", errors="replace"):
        m = re.match(r'^(\d+) +[\d.]+ (.*)$', raw.rstrip("\n"))
        if not m:
            continue
        pid, text = m.groups()
        if text.endswith(" <unfinished ...>"):
            pending[pid] = text[: -len(" <unfinished ...>")]
            continue
        r = re.match(r'<\.\.\. [a-z0-9_]+ resumed>(.*)$', text)
        if r:
            text = pending.pop(pid, "") + r.group(1)
        c = re.match(r'fcntl\(\d+<([^>]*)>, (F_(?:OFD_)?(?:GET|SET)LKW?), \{l_type=F_(\w+), '
                     r'l_whence=SEEK_SET, l_start=(-?\d+), l_len=(-?\d+)', text)
        if not c or not c.group(1).startswith(d):
            continue
        cmd = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36,
               "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38}[c.group(2)]
        typ = {"RDLCK": 0, "WRLCK": 1, "UNLCK": 2}[c.group(3)]
        start, ln = int(c.group(4)), int(c.group(5))
        if ln < 0:
            start, ln = start + ln, -ln
        get = cmd in (5, 36)
        calls.append((c.group(1), cmd, 2 if get else typ, typ + 1 if get else 0, start, ln))
    got = [(o["path"], o["flags"], o["mode"], o["aux"], o["offset"], o["len"])
           for o in map(json.loads, open(d + "/s.jsonl")) if o["op"] == "fcntl_lock"]
    paths = collections.Counter(c[0] for c in calls)
    if not any(p.endswith("-shm") for p in paths) or not any(p.endswith(".db") for p in paths):
        print("FAIL: sqlite3 locked %s: no WAL index locks, or none on the database" %
              dict(paths)); fail = 1
    if got != calls:
        print("FAIL: sqlite3: %d lock ops imported, %d lock calls in the log" % (len(got),
                                                                             len(calls)))
        for a, b in zip(got, calls):
            if a != b:
                print("  first difference: imported %s, log %s" % (a, b)); break
        fail = 1
sys.exit(fail)
PY
[ $? = 0 ] || exit 1
command -v sqlite3 > /dev/null || { echo "SKIP: locks.c passed; sqlite3 missing"; exit 77; }
echo PASS
