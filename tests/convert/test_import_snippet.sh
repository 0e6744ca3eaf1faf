#!/bin/bash
# ioreel import strace on hand-written strace output whose every op is known: pid column
# (-o) and [pid N] (stderr) forms, unfinished/resumed pairs, threads (CLONE_THREAD) and a
# forked child sharing the file position, errors, positions through read/lseek/dup/fork,
# O_APPEND writes at the size fstat showed, sockets and pipes left out, a garbage line.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/a.strace" <<'LOG'
1000  1700000000.000000 execve("/usr/bin/app", ["app", "-v"], 0x7ffc0 /* 3 vars */) = 0 <0.000100>
1000  1700000000.001000 openat(AT_FDCWD</work>, "data.bin", O_RDWR|O_CREAT, 0644) = 3</work/data.bin> <0.000010>
1000  1700000000.002000 read(3</work/data.bin>, "abc"..., 100) = 100 <0.000020>
1000  1700000000.003000 read(3</work/data.bin>, "abc"..., 50) = 50 <0.000020>
1000  1700000000.004000 lseek(3</work/data.bin>, 1000, SEEK_SET) = 1000 <0.000005>
1000  1700000000.005000 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f00, parent_tid=0x7f00, exit_signal=0, stack=0x7f00, stack_size=0x7fff00, tls=0x7f00} <unfinished ...>
1001  1700000000.005500 write(3</work/data.bin>, "xyz", 3 <unfinished ...>
1000  1700000000.005600 <... clone3 resumed> => {parent_tid=[1001]}, 88) = 1001 <0.000700>
1001  1700000000.006000 <... write resumed>) = 3 <0.000600>
1001  1700000000.007000 pread64(3</work/data.bin>, "", 4096, 8192) = 0 <0.000010>
1000  1700000000.008000 openat(AT_FDCWD</work>, "missing", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000010>
1000  1700000000.009000 openat(AT_FDCWD</work>, "log.txt", O_WRONLY|O_CREAT|O_APPEND, 0644) = 4</work/log.txt> <0.000010>
1000  1700000000.009100 newfstatat(4</work/log.txt>, "", {st_mode=S_IFREG|0644, st_size=500, ...}, AT_EMPTY_PATH) = 0 <0.000005>
1000  1700000000.010000 write(4</work/log.txt>, "hello\n", 6) = 6 <0.000010>
1000  1700000000.011000 write(4</work/log.txt>, "hello\n", 6) = 6 <0.000010>
1000  1700000000.012000 write(5<socket:[1234]>, "x", 1) = 1 <0.000010>
1000  1700000000.012500 read(6<pipe:[99]>, "x", 1) = 1 <0.000010>
1000  1700000000.013000 dup(3</work/data.bin>) = 7</work/data.bin> <0.000003>
1000  1700000000.014000 read(7</work/data.bin>, "", 10) = 10 <0.000010>
1000  1700000000.015000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 1002 <0.000100>
1002  1700000000.016000 read(3</work/data.bin>, "", 10) = 10 <0.000010>
1002  1700000000.017000 fdatasync(3</work/data.bin>) = 0 <0.002000>
1002  1700000000.019500 +++ exited with 0 +++
1000  1700000000.020000 this line is garbage
1000  1700000000.021000 fsync(3</work/data.bin>) = 0 <0.001000>
1000  1700000000.022000 close(3</work/data.bin>) = 0 <0.000010>
1000  1700000000.023000 +++ exited with 0 +++
LOG
cat > "$dir/b.strace" <<'LOG'
1700000000.000000 execve("/bin/sh", ["sh"], 0x7ffc0 /* 3 vars */) = 0 <0.000100>
1700000000.001000 openat(AT_FDCWD</w>, "f", O_RDONLY) = 3</w/f> <0.000010>
1700000000.002000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 2001 <0.000100>
strace: Process 2001 attached
[pid  2001] 1700000000.003000 read(3</w/f>, "", 10) = 10 <0.000010>
[pid  2000] 1700000000.003500 read(3</w/f>,  <unfinished ...>
[pid  2001] 1700000000.004000 +++ exited with 0 +++
1700000000.005000 <... read resumed>"0123456789", 10) = 10 <0.001600>
1700000000.006000 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=2001} ---
1700000000.007000 close(3</w/f>) = 0 <0.000010>
LOG
cat > "$dir/c.strace" <<'LOG'
3000  1700000000.000000 chdir("/srv") = 0 <0.000010>
3000  1700000000.001000 mkdir("db", 0755) = 0 <0.000010>
3000  1700000000.002000 openat(AT_FDCWD, "db/x", O_RDWR|O_CREAT|O_DIRECT, 0600) = 3</srv/db/x> <0.000010>
3000  1700000000.003000 rename("db/x", "db/y") = 0 <0.000010>
3000  1700000000.004000 openat(AT_FDCWD, "/dev/null", O_WRONLY) = 4</dev/null<char 1:3>> <0.000010>
3000  1700000000.005000 write(4</dev/null<char 1:3>>, "x", 1) = 1 <0.000010>
3000  1700000000.006000 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_SHARED, 3</srv/db/y>, 0) = 0x7f0000000000 <0.000010>
3000  1700000000.007000 msync(0x7f0000001000, 4096, MS_SYNC) = 0 <0.000100>
3000  1700000000.008000 io_setup(8, [0x7f1000000000]) = 0 <0.000010>
3000  1700000000.009000 io_submit(0x7f1000000000, 2, [{aio_data=0x11, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3</srv/db/y>, aio_buf="a,b}c", aio_nbytes=4096, aio_offset=8192}, {aio_data=0x22, aio_lio_opcode=IOCB_CMD_PREAD, aio_fildes=3</srv/db/y>, aio_buf=0x1000, aio_nbytes=512, aio_offset=0}]) = 2 <0.000020>
3000  1700000000.010000 io_getevents(0x7f1000000000, 2, 2, [{data=0x22, obj=0x5000, res=512, res2=0}, {data=0x11, obj=0x6000, res=4096, res2=0}], NULL) = 2 <0.000500>
3000  1700000000.011000 unlink("db/y") = 0 <0.000010>
3000  1700000000.012000 pwritev2(3</srv/db/y (deleted)>, [{iov_base="aa", iov_len=2}, {iov_base="bbb", iov_len=3}], 2, -1, RWF_DSYNC) = 5 <0.000010>
3000  1700000000.013000 sync_file_range(3</srv/db/y (deleted)>, 0, 4096, SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER) = 0 <0.000010>
3000  1700000000.014000 fallocate(3</srv/db/y (deleted)>, FALLOC_FL_KEEP_SIZE, 0, 1048576) = 0 <0.000010>
LOG

"$IOREEL" import strace "$dir/a.strace" -o "$dir/a.reel" 2> "$dir/a.err" ||
	{ echo "FAIL: import a exited $?"; cat "$dir/a.err"; exit 1; }
grep -q '^ioreel: 1 line(s) of .* could not be parsed and were skipped (first: line 24)$' "$dir/a.err" ||
	{ echo "FAIL: bad line not reported:"; cat "$dir/a.err"; exit 1; }
"$IOREEL" import strace - -o "$dir/b.reel" < "$dir/b.strace" 2> "$dir/b.err" ||
	{ echo "FAIL: import b (stdin) exited $?"; cat "$dir/b.err"; exit 1; }
"$IOREEL" import strace "$dir/c.strace" -o "$dir/c.reel" 2> "$dir/c.err" ||
	{ echo "FAIL: import c exited $?"; cat "$dir/c.err"; exit 1; }
for t in a b c; do
	"$IOREEL" dump --format jsonl "$dir/$t.reel" > "$dir/$t.jsonl" || { echo "FAIL: dump $t"; exit 1; }
	"$IOREEL" info --json "$dir/$t.reel" > "$dir/$t.info" || { echo "FAIL: info $t"; exit 1; }
done

python3 - "$dir" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
fail = 0
def check(name, got, want):
    global fail
    if len(got) != len(want):
        print("FAIL: %s: %d ops, want %d:" % (name, len(got), len(want)))
        for o in got: print("  ", o["op"], o["tid"], o["path"], o["offset"], o["len"], o["ret"])
        fail = 1
        return
    for i, (o, w) in enumerate(zip(got, want)):
        for k, v in w.items():
            if o[k] != v:
                print("FAIL: %s op %d (%s): %s = %r, want %r" % (name, i, o["op"], k, o[k], v))
                fail = 1
ms = 1000000
D, L = "/work/data.bin", "/work/log.txt"
# the process records (fork, execve, exit) are convert.import_process's
PROC = ("fork", "execve", "exit")
def ops(name):
    return [o for o in map(json.loads, open(d + "/" + name)) if o["op"] not in PROC]
a = ops("a.jsonl")
check("a", a, [
    dict(op="openat", pid=1000, tid=1000, path=D, fd=-100, ret=3, flags=0o102, mode=0o644,
         start_ns=1 * ms, end_ns=1 * ms + 10000),
    dict(op="read", tid=1000, path=D, fd=3, offset=0, len=100, ret=100, fd_kind="reg"),
    dict(op="read", tid=1000, offset=100, len=50, ret=50),
    dict(op="lseek", offset=1000, mode=0, ret=1000),
    # the thread: same process, same file position; one op from the unfinished/resumed pair
    dict(op="write", pid=1000, tid=1001, offset=1000, len=3, ret=3, start_ns=5500000,
         end_ns=6100000),
    dict(op="pread64", pid=1000, tid=1001, offset=8192, len=4096, ret=0),
    dict(op="openat", path="/work/missing", ret=-2, err="ENOENT"),
    dict(op="openat", path=L, ret=4, flags=0o2101),
    # glibc's fstat (newfstatat on the fd, AT_EMPTY_PATH) is recorded as fstat
    dict(op="fstat", fd=4, path=L, flags=0x1000, ret=0),
    # O_APPEND: at the size fstat showed, then after the first write
    dict(op="write", path=L, fd=4, offset=500, len=6),
    dict(op="write", path=L, fd=4, offset=506, len=6),
    dict(op="dup", fd=3, ret=7, path=D),
    dict(op="read", fd=7, path=D, offset=1003, len=10),
    # the forked child shares the open file description, so the position too
    dict(op="read", pid=1002, tid=1002, fd=3, path=D, offset=1013, len=10),
    dict(op="fdatasync", pid=1002, tid=1002, fd=3, path=D, start_ns=17 * ms,
         end_ns=19 * ms),
    dict(op="fsync", pid=1000, fd=3, start_ns=21 * ms, end_ns=22 * ms),
    dict(op="close", pid=1000, fd=3, path=D),
])
b = ops("b.jsonl")
check("b", b, [
    dict(op="openat", pid=2000, tid=2000, path="/w/f", ret=3),
    dict(op="read", pid=2001, tid=2001, path="/w/f", offset=0, len=10, ret=10),
    dict(op="read", pid=2000, tid=2000, path="/w/f", offset=10, len=10, ret=10,
         start_ns=3500000, end_ns=5100000),
    dict(op="close", pid=2000, tid=2000, path="/w/f"),
])
c = ops("c.jsonl")
Y, ctx = "/srv/db/y", 0x7f1000000000
check("c", c, [
    dict(op="mkdir", path="/srv/db", mode=0o755, fd_kind="dir"),  # relative to chdir's cwd
    dict(op="openat", path="/srv/db/x", ret=3, flags=0o40102, mode=0o600),
    dict(op="rename", path="/srv/db/x", path2=Y),
    # /dev/null (-yy: <char 1:3>) opened and written: not file I/O, left out
    dict(op="mmap", fd=3, path=Y, len=8192, mode=3, flags=1, aux=0x7f0000000000),
    dict(op="msync", path=Y, aux=0x7f0000001000, offset=4096, len=4096, flags=4),
    dict(op="aio_submit", fd=3, path=Y, subop=1, aux=0x11, ctx=ctx, offset=8192, len=4096,
         ret=0),
    dict(op="aio_submit", fd=3, path=Y, subop=0, aux=0x22, ctx=ctx, offset=0, len=512),
    # completions come back in their own order, matched to their iocbs by aio_data
    dict(op="aio_complete", path=Y, subop=0, aux=0x22, offset=0, len=512, ret=512,
         start_ns=10500000, end_ns=10500000),
    dict(op="aio_complete", path=Y, subop=1, aux=0x11, offset=8192, len=4096, ret=4096),
    dict(op="unlink", path=Y),
    # offset -1: the file position (nothing moved it since the open); " (deleted)" dropped
    dict(op="pwritev2", path=Y, offset=0, len=5, ret=5, flags=2),
    dict(op="sync_file_range", path=Y, offset=0, len=4096, flags=6),
    dict(op="fallocate", path=Y, mode=1, offset=0, len=1048576),
])
ic = json.load(open(d + "/c.info"))
for k, v in dict(bytes_read=512, bytes_written=4096 + 5).items():
    if ic[k] != v:
        print("FAIL: info c %s = %r, want %r" % (k, ic[k], v)); fail = 1
if ic["meta"].get("nonfile_ops") != "2":
    print("FAIL: c nonfile_ops %r" % ic["meta"].get("nonfile_ops")); fail = 1
ia = json.load(open(d + "/a.info"))
# 17 file ops, and execve, fork (of 1002) and the exits of 1002 and 1000
for k, v in dict(ops=21, processes=2, threads=3).items():
    if ia[k] != v:
        print("FAIL: info a %s = %r, want %r" % (k, ia[k], v)); fail = 1
m = ia["meta"]
for k, v in {"tool": "ioreel import strace", "command": "app -v", "nonfile_ops": "2",
             "start_wall_ns": "1700000000000000000", "strace.bad_lines": "1"}.items():
    if m.get(k) != v:
        print("FAIL: meta %s = %r, want %r" % (k, m.get(k), v)); fail = 1
sys.exit(fail)
PY
echo PASS
