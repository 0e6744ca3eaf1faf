#!/usr/bin/env python3
"""fd_diff.py REC.jsonl STRACE.jsonl DIR: the capture's trace of fd_torture against strace's
(imported), op by op, and both against what the kernel is known to have done.

Each thread's ops are compared in order: type, process and thread (numbered by first
appearance: the ids differ from run to run), fd, fd2, path, path2, offset, length, flags,
mode, result and fd kind. Times are not compared. Exit 1 on any difference not listed
below as allowed, with each difference printed.

Allowed differences, and why:
- fd_kind of an op that has no fd (path ops: access, mkdir, rename, unlink; failed opens):
  FORMAT.md defines fd_kind as the kind of `fd` (for an open, the fd returned); these have
  none. The capture leaves it unknown; the strace importer writes its guess of the path's
  kind, which it uses to leave /proc and /sys out. No reader looks at it there.
- Paths outside DIR (the C library the loader maps): strace -y shows the kernel's name of
  the file opened, with symlinks resolved (/usr/lib/x86_64-linux-gnu/libc.so.6); the capture
  records the name the program asked for, made absolute without touching the file system
  (/lib/x86_64-linux-gnu/libc.so.6, /lib being a symlink to usr/lib), which is the name a
  replay must look up. They are compared after resolving symlinks. DIR holds no symlinks:
  its paths are compared as they are.
- mmap's result is an address (ASLR): only success is compared.
- close_range(2): the capture writes a close record (subop 1) for each file of the range it
  knew open; strace's import writes none. Those records are left out of the comparison and
  checked against what the kernel did instead (expected_capture).
"""
import json
import os
import sys

FIELDS = ("op", "pid", "tid", "fd", "fd2", "path", "path2", "offset", "len", "ret", "flags",
          "mode", "fd_kind")
OPENS = ("open", "openat", "openat2", "creat")


def has_fd(o):
    """Whether fd_kind describes an fd of this op (FORMAT.md, "Fields per op type")."""
    if o["op"] in OPENS:
        return o["ret"] >= 0
    return o["fd"] >= 0


def from_close_range(o):
    return o["op"] == "close" and o.get("subop") == 1


def load(name, d):
    ops = [json.loads(line) for line in open(name)]
    ops.sort(key=lambda o: (o["start_ns"], o["end_ns"]))
    pids, tids, threads = {}, {}, {}
    for o in ops:
        o["pid"] = pids.setdefault(o["pid"], len(pids))
        o["tid"] = tids.setdefault(o["tid"], len(tids))
        # a fork's result is the child's pid, another in each run: the process it names
        if o["op"] == "fork" and o["ret"] > 0:
            o["ret"] = "pid %d" % pids.setdefault(o["ret"], len(pids))
        for k in ("path", "path2"):
            p = o[k]
            if p and p.startswith("/") and not (p == d or p.startswith(d + "/")):
                o[k] = os.path.realpath(p)
        if o["op"] == "mmap":
            o["ret"] = o["ret"] >= 0
        if not has_fd(o):
            o["fd_kind"] = None
        if not from_close_range(o):
            threads.setdefault(o["tid"], []).append(o)
    return ops, threads


def key(o):
    return tuple(o[f] for f in FIELDS)


def show(o):
    return " ".join(f"{f}={o[f]}" for f in FIELDS)


def compare(ta, tb):
    """Differences between two traces, thread by thread, in op order."""
    import difflib
    out = []
    for t in sorted(set(ta) | set(tb)):
        x, y = ta.get(t, []), tb.get(t, [])
        sm = difflib.SequenceMatcher(a=[key(o) for o in x], b=[key(o) for o in y],
                                     autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                continue
            for k in range(max(i2 - i1, j2 - j1)):
                p = x[i1 + k] if i1 + k < i2 else None
                q = y[j1 + k] if j1 + k < j2 else None
                if p and q:
                    d = ", ".join(f"{f}: {p[f]!r} / {q[f]!r}" for f in FIELDS if p[f] != q[f])
                    out.append(f"thread #{t}: {p['op']} fd={p['fd']} differs ({d})")
                elif p:
                    out.append(f"thread #{t}: only in the capture: {show(p)}")
                else:
                    out.append(f"thread #{t}: only in strace's: {show(q)}")
    return out


def expected(d):
    """Ops that must be in both traces as the kernel did them: a difference can hide a bug
    both writers share."""
    return [
        # dup2 onto an open fd closed it: the write went to "a", at its shared position
        dict(op="dup2", fd=3, fd2=5, ret=5),
        dict(op="write", fd=5, path=f"{d}/a", offset=8, len=2, ret=2),
        dict(op="dup3", fd=6, fd2=4, flags=0o2000000, ret=4),
        dict(op="pread64", fd=4, path=f"{d}/d", offset=2, len=4, ret=4),
        dict(op="fcntl_dupfd", fd=3, fd2=20, flags=0o2000000, ret=20),
        dict(op="read", fd=20, path=f"{d}/a", offset=12, ret=2),
        # close_range(5, 6, 0) closed them: failed, on no file
        dict(op="read", fd=5, path=None, ret=-9),
        dict(op="close", fd=6, path=None, ret=-9),
        dict(op="fcntl_dupfd", fd=5, path=None, ret=-9),
        dict(op="write", fd=5, path=f"{d}/e", offset=0, len=4, ret=4),
        # dirfd, chdir, fchdir; a directory renamed while open
        dict(op="openat", fd=6, path=f"{d}/sub/x", ret=7),
        dict(op="openat", fd=-100, path=f"{d}/sub/y", ret=7),
        dict(op="openat", fd=-100, path=f"{d}/other/z", ret=8),
        dict(op="openat", fd=6, path=f"{d}/sub2/w", ret=8),
        dict(op="write", fd=8, path=f"{d}/sub2/w", ret=1),
        dict(op="fstat", fd=6, path=f"{d}/sub2", ret=0),
        dict(op="openat", fd=-100, path=f"{d}/sub2/v", ret=8),
        dict(op="openat", fd=-100, path=f"{d}/other2/q", ret=8),
        # a file renamed, one unlinked, while open
        dict(op="write", fd=6, path=f"{d}/r2", offset=4, len=2, ret=2),
        dict(op="write", fd=6, path=f"{d}/u", offset=4, len=2, ret=2),
        # vectors, flags, positions
        dict(op="writev", fd=6, path=f"{d}/vec", offset=0, len=9, ret=9),
        dict(op="pwritev2", fd=6, offset=100, len=5, flags=2, ret=5),  # RWF_DSYNC
        dict(op="pwritev2", fd=6, offset=9, len=4, flags=1, ret=4),  # -1: the position
        dict(op="preadv2", fd=6, offset=1, len=8, flags=1, ret=8),
        dict(op="preadv2", fd=6, offset=13, len=4, ret=4),
        dict(op="readv", fd=6, offset=2, len=8, ret=8),
        dict(op="read", fd=6, path=f"{d}/vec", offset=10, len=3, ret=3),
        dict(op="lseek", fd=6, offset=200, mode=3, ret=-6),  # SEEK_DATA past the end: ENXIO
        dict(op="write", fd=6, path=f"{d}/ap", offset=5, len=3, ret=3),  # O_APPEND
        dict(op="writev", fd=6, path=f"{d}/ap", offset=8, len=1, ret=1),
        # two threads on one fd: each op at the position the other left
        dict(op="read", fd=6, path=f"{d}/shared", offset=100, len=10, ret=10),
        dict(op="write", fd=6, path=f"{d}/shared", offset=115, len=3, ret=3),
        dict(op="read", fd=6, path=f"{d}/shared", offset=4096, ret=0),
        dict(op="lseek", fd=6, offset=1, mode=3, ret=1),
        dict(op="read", fd=6, path=f"{d}/shared", offset=1, len=7, ret=7),
        dict(op="read", fd=6, path=f"{d}/shared", offset=8, len=2, ret=2),
        # fd 7 reused across threads
        dict(op="write", fd=7, path=f"{d}/t1", offset=0, len=4, ret=4),
        dict(op="write", fd=7, path=f"{d}/t2", offset=3, len=4, ret=4),
        # fork: the child's close and reuse of fd 3 is its own
        dict(op="write", fd=3, path=f"{d}/fchild", offset=0, len=5, ret=5),
        dict(op="pread64", fd=3, path=f"{d}/a", offset=0, len=4, ret=4),
        # clone(CLONE_FILES): the child's fd is the parent's, its close too
        dict(op="write", fd=7, path=f"{d}/cf", offset=5, len=6, ret=6),
        dict(op="write", fd=6, path=None, ret=-9),
        dict(op="write", fd=6, path=f"{d}/cf3", offset=0, len=1, ret=1),
        # vfork + execve: fd 3 inherited, the close-on-exec ones gone
        dict(op="read", fd=3, path=f"{d}/a", offset=14, len=2, ret=2),
        dict(op="read", fd=4, path=None, ret=-9),
        dict(op="read", fd=10, path=None, ret=-9),
        dict(op="read", fd=20, path=None, ret=-9),
        dict(op="openat", fd=-100, path=f"{d}/h", ret=4),
        dict(op="write", fd=5, path=f"{d}/e", offset=4, len=1, ret=1),
        # failures
        dict(op="openat", path=f"{d}/nonexistent/x", ret=-2),
        dict(op="openat", fd=99, ret=-9),
        dict(op="read", fd=99, path=None, ret=-9),
        dict(op="close", fd=99, path=None, ret=-9),
        dict(op="write", fd=6, path=f"{d}/a", ret=-9),  # open for reading only
    ]


def expected_capture(d):
    """Ops that must be in the capture's trace only: strace's import does not write them."""
    return [
        # close_range(5, 6, 0): a close of each ("a" by dup2, "d"); (10, 19, CLOEXEC) none
        dict(op="close", fd=5, path=f"{d}/a", subop=1, ret=0),
        dict(op="close", fd=6, path=f"{d}/d", subop=1, ret=0),
    ]


def main():
    rec, st, d = sys.argv[1], sys.argv[2], os.path.normpath(sys.argv[3])
    ra, ta = load(rec, d)
    rb, tb = load(st, d)
    bad = compare(ta, tb)
    for name, ops, exp in (("capture", ra, expected(d) + expected_capture(d)),
                           ("strace", rb, expected(d))):
        for e in exp:
            if not any(all(o.get(k) == v for k, v in e.items()) for o in ops):
                bad.append(f"{name}: no op like {e}")
    closes = [o for o in ra if from_close_range(o) and o["fd"] == 10]
    if closes:
        bad.append(f"capture: close_range(CLOSE_RANGE_CLOEXEC) closed {closes}")
    n = sum(1 for o in ra if o["path"] and o["path"].startswith(d + "/"))
    print(f"capture {len(ra)} ops, strace {len(rb)} ops ({n} on files in DIR), "
          f"{len(ta)} threads; {len(bad)} unexplained differences")
    for b in bad:
        print("  " + b)
    if n < 80 or len(ta) < 5:
        print("  too few ops or threads: the torture did not run as it should")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
