#!/usr/bin/env python3
"""stress_check.py TRACE RESULT [--async-data]: checks a replay's result against its trace, as
tests/replay/test_stress_deps.sh needs (both read with "ioreel dump --format jsonl", $IOREEL):

 - the same ops per (pid, tid), same types in the same order; each thread's ops one after
   the other in the result (an op starts after the previous one ended; --async-data, for
   --engine io_uring or libaio: reads and writes may overlap the reads and writes before
   them);
 - every op with its original outcome (the sign; the errno of a failure; a read or write no
   shorter), the differing ones listed;
 - data order (replay/replay_extent.c), for ops that carry their file's path: a cut (a
   truncate, an O_TRUNC open, creat) starts after every other thread's write and read of
   the file since the cut before that reached beyond its new length ended (an async one:
   its submit, and once reaped, its completion);
 - cross-thread order as the replay promises it (replay/replay_deps.c, at the top;
   README): per key - an fd of a process, a path, a directory by name, an async request
   id - the last "structural" op (open, close, dup onto, create, unlink, rename, mkdir,
   rmdir, truncate, symlink, an async submit) and the uses since (a completion uses its
   request and its fd). An op of another thread that uses the key starts after the
   structural op before it ended; a structural op starts after the structural op before
   it, and after every other thread's use since, ended. A path op uses every directory
   above it, on which mkdir, rmdir, rename and symlink of it are structural; getdents64
   uses its fd's directory (the name it carries, else the one the fd was opened by). (A
   completion's start is its request's submission: its end stands for when it ran.) An open
   with O_CREAT (no O_TRUNC, O_EXCL) of a name that is there, as the last op on it in the
   trace found or left it, below directories no op makes, moves or removes, only uses the
   name (open__makes_name). A close that entered before another thread's open or dup (not
   dup2, dup3) returned its number ended after that open and is left out of the number's
   order (it closed the previous file: disp__close_released).

Exit 0 when all hold; 1 with the first violations named."""
import json
import os
import subprocess
import sys
from collections import defaultdict

IOREEL = os.environ.get("IOREEL", "build/ioreel")

O_CREAT, O_EXCL, O_TRUNC = 0o100, 0o200, 0o1000
RENAME_EXCHANGE = 2
ENOENT = 2
# names some op makes, moves or removes as a directory (replay_fileset's dirs_changed), and
# whether the last op on a name found or left it there (disp__names), in trace order
CHANGED = set()
EXISTS = {}
FALLOC_FL_ZERO_RANGE = 0x10
AT_REMOVEDIR, AT_EMPTY_PATH = 0x200, 0x1000

PATH_OPS = {
    "open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx", "access",
    "faccessat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat",
    "rmdir", "truncate", "chmod", "fchmodat", "chown", "lchown", "fchownat", "utimensat",
    "link", "linkat", "symlink", "symlinkat", "readlink", "readlinkat",
}
OPEN = {"open", "openat", "openat2", "creat"}
DUP = {"dup", "dup2", "dup3", "fcntl_dupfd"}
RENAME = {"rename", "renameat", "renameat2"}
LINK = {"link", "linkat"}
SYMLINK = {"symlink", "symlinkat"}
STRUCT_PATH = {"unlink", "unlinkat", "rmdir", "mkdir", "mkdirat", "truncate"} | RENAME | SYMLINK
READS = {"read", "pread64", "readv", "preadv", "preadv2"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2"}
COPIES = {"copy_file_range", "sendfile"}


def dump(path):
    out = subprocess.run([IOREEL, "dump", "--format", "jsonl", path], check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def on_fd(o):
    if o["fd"] < 0:
        return False
    t = o["op"]
    if t not in PATH_OPS:
        return True
    if t == "utimensat" and not o["path"]:
        return True
    if t in ("newfstatat", "statx", "fchmodat", "fchownat", "utimensat"):
        return bool(o["flags"] & AT_EMPTY_PATH)
    return False


def parent(p):
    i = p.rfind("/")
    return p[:i] if i >= 0 else ""


def dirs_above(p):
    """the directories a path op on p uses: its parent and every one further up (the replay
    looks up those some op makes, moves or removes: the others have no structural op)"""
    out = []
    while "/" in p:
        p = parent(p)
        out.append((("D", p), "u"))
    return out


def stable(p):
    """no directory above p comes or goes in the trace"""
    while "/" in p:
        p = parent(p)
        if p and p in CHANGED:
            return False
    return True


def makes_name(o):
    t, p1 = o["op"], o["path"]
    if t == "creat" or o["flags"] & (O_TRUNC | O_EXCL):
        return True
    if not o["flags"] & O_CREAT:
        return False
    return not (stable(p1) and EXISTS.get(p1))


def names_exist(o):
    t, p = o["op"], o["path"]
    if not p or on_fd(o):
        return
    if o["ret"] == -ENOENT:
        EXISTS[p] = False
    if o["ret"] < 0:
        return
    if t in ("unlink", "unlinkat", "rmdir"):
        EXISTS[p] = False
    elif t in RENAME:
        EXISTS[p] = bool(o["flags"] & RENAME_EXCHANGE)
        EXISTS[o["path2"]] = True
    else:
        EXISTS[p] = True
        if t in LINK and o["path2"]:
            EXISTS[o["path2"]] = True


def keys(o, fdnames):
    """[(key, 'u' | 's')] in the order the dispatcher looks them up (disp__deps); fdnames:
    (pid, fd) -> the path it was opened by"""
    t, p1 = o["op"], o["path"]
    p2 = o["path2"] if (t in RENAME or t in LINK) else None
    k = []
    pf = on_fd(o)
    if p1 and not pf:
        k += dirs_above(p1)
    if p2:
        k += dirs_above(p2)
    if p1 and (t in ("mkdir", "mkdirat", "rmdir") or t in RENAME or t in SYMLINK or
               (t == "unlinkat" and o["flags"] & AT_REMOVEDIR)):
        k.append((("D", p1), "s"))
    if p2:
        k.append((("D", p2), "s"))
    fd = ("F", o["pid"])
    if t in OPEN:
        if p1:
            k.append((("P", p1), "s" if makes_name(o) else "u"))
        if o["ret"] >= 0:
            k.append(((fd, o["ret"]), "s"))
    elif t == "close":
        k.append(((fd, o["fd"]), "s"))
    elif t in DUP:
        k.append(((fd, o["fd"]), "u"))
        if o["ret"] >= 0:
            k.append(((fd, o["ret"]), "s"))
    elif t in ("aio_submit", "uring_submit"):
        if o["fd"] >= 0:
            k.append(((fd, o["fd"]), "u"))
        k.append((("A", o["pid"], o["ctx"], o["aux"], t[:3]), "s"))
    elif t in ("aio_complete", "uring_complete"):
        if o["fd"] >= 0:
            k.append(((fd, o["fd"]), "u"))
        k.append((("A", o["pid"], o["ctx"], o["aux"], t[:3]), "u"))
    elif t in COPIES:
        if o["fd"] >= 0:
            k.append(((fd, o["fd"]), "u"))
        if o["fd2"] >= 0:
            k.append(((fd, o["fd2"]), "u"))
    elif t in LINK and o["fd"] >= 0 and o["flags"] & AT_EMPTY_PATH:
        k.append(((fd, o["fd"]), "u"))
        if p2:
            k.append((("P", p2), "s"))
    elif p1 and not pf:
        k.append((("P", p1), "s" if t in STRUCT_PATH else "u"))
        if p2:
            k.append((("P", p2), "s"))
    elif o["fd"] >= 0:
        k.append(((fd, o["fd"]), "u"))
        d = p1 or fdnames.get((o["pid"], o["fd"])) if t == "getdents64" else None
        if d:
            k.append((("D", d), "u"))
    return k


def name_fds(o, fdnames):
    """what the opens, dups and closes do to the paths fds were opened by (disp__fd_named)"""
    t = o["op"]
    if t in OPEN and o["ret"] >= 0 and o["path"]:
        fdnames[(o["pid"], o["ret"])] = o["path"]
    elif t in OPEN and o["ret"] >= 0:
        fdnames.pop((o["pid"], o["ret"]), None)
    elif t == "close":
        fdnames.pop((o["pid"], o["fd"]), None)
    elif t in DUP and o["ret"] >= 0:
        name = fdnames.get((o["pid"], o["fd"]))
        if name:
            fdnames[(o["pid"], o["ret"])] = name
        else:
            fdnames.pop((o["pid"], o["ret"]), None)


def wrote_to(o):
    """(path, end) of what a write of the file by path makes it reach, or None"""
    t = o["op"]
    if o["ret"] < 0:
        return None
    if t in WRITES and o["path"] and o["ret"]:
        return o["path"], o["offset"] + o["ret"]
    if t in COPIES and o["path2"] and o["ret"] and (t == "copy_file_range" or o["mode"] == 1):
        return o["path2"], o["aux"] + o["ret"]
    if t == "fallocate" and o["path"] and not o["mode"] & ~FALLOC_FL_ZERO_RANGE:
        return o["path"], o["offset"] + o["len"]
    return None


ASYNC_WRITES = {("aio", 1), ("aio", 8), ("uring", 2), ("uring", 5), ("uring", 23)}
ASYNC_READS = {("aio", 0), ("aio", 7), ("uring", 1), ("uring", 4), ("uring", 22)}


def read_of(o):
    """(path, end) of the bytes a read of the file by path read, or None"""
    t = o["op"]
    if o["ret"] <= 0 or not o["path"]:
        return None
    if t in READS or t in COPIES:
        return o["path"], o["offset"] + o["ret"]
    return None


def async_read(o):
    """the request id of an async read's submit or completion, or None"""
    kind = o["op"].split("_")[0]
    if (kind, o["subop"]) not in ASYNC_READS or o["ret"] < 0:
        return None
    return (o["pid"], kind, o["ctx"], o["aux"])


def async_write(o):
    """the request id of an async write's submit or completion, or None"""
    kind = o["op"].split("_")[0]
    if (kind, o["subop"]) not in ASYNC_WRITES or o["ret"] < 0:
        return None
    return (o["pid"], kind, o["ctx"], o["aux"])


def cut_to(o):
    """(path, length) a cut of the file by path leaves it, or None"""
    t = o["op"]
    if o["ret"] < 0 or not o["path"]:
        return None
    if t in ("truncate", "ftruncate"):
        return o["path"], o["len"]
    if t == "creat" or (t in OPEN and o["flags"] & O_TRUNC):
        return o["path"], 0
    return None


class Writers:
    """per path, each thread's writes (reads: its reads) since the last cut: [index of its
    last, furthest end]"""

    def __init__(self, reads=False):
        self.by = defaultdict(dict)
        self.inflight = {}  # async write request -> (path, end)
        self.reads = reads

    def wrote(self, i, o):
        w = read_of(o) if self.reads else wrote_to(o)
        req = async_read(o) if self.reads else async_write(o)
        if req and o["op"].endswith("_submit") and o["path"] and o["len"]:
            w = self.inflight[req] = (o["path"], o["offset"] + o["len"])
        elif req and o["op"].endswith("_complete"):
            w = self.inflight.pop(req, None)
        if w:
            e = self.by[w[0]].setdefault((o["pid"], o["tid"]), [i, 0])
            e[0], e[1] = i, max(e[1], w[1])

    def cut(self, i, o, need):
        """the writes a cut at index i waits for (need(j, i, key)); drops them"""
        c = cut_to(o)
        if not c:
            return
        ws = self.by[c[0]]
        for th, (j, end) in list(ws.items()):
            if end > c[1]:
                need(j, i, ("cut after a read" if self.reads else "cut", c[0]))
                del ws[th]
        if o["op"] in OPEN or o["op"] == "creat":
            ws.clear()  # a new, empty file

    def names(self, o):
        """what unlinks, creates and renames do to the files by name"""
        if o["op"] in RENAME and o["flags"] & RENAME_EXCHANGE and o["ret"] >= 0:
            a, b = self.by.pop(o["path"], {}), self.by.pop(o["path2"], {})
            self.by[o["path"]], self.by[o["path2"]] = b, a
            return
        t = o["op"]
        if o["ret"] < 0:
            return
        if t in ("unlink", "unlinkat") or (t in OPEN and o["flags"] & O_EXCL):
            self.by.pop(o["path"], None)
        elif t in RENAME and o["path"] != o["path2"]:
            self.by[o["path2"]] = self.by.pop(o["path"], {})


def began(r):
    """when an op began; None for a completion: its start is its request's submission and
    its end when the request completed (FORMAT.md), which may come before the record ran, so
    nothing in the result tells when the record ran"""
    return None if r["op"].endswith("_complete") else r["start_ns"]


def differs(orig, res):
    a, b = orig["ret"], res["ret"]
    if a >= 0 and b < 0:
        return "failed where the original succeeded"
    if a < 0 and b >= 0:
        return "succeeded where the original failed"
    if a < 0 and a != b:
        return "another error"
    if (orig["op"] in READS or orig["op"] in WRITES or orig["op"] in COPIES) and b < a:
        return "short"
    return None


def show(o, r=None):
    s = f"{o['op']} pid {o['pid']} tid {o['tid']}"
    for f in ("fd", "fd2"):
        if o[f] != -1:
            s += f" {f}={o[f]}"
    for f in ("path", "path2"):
        if o[f]:
            s += f" {f}={o[f]}"
    s += f" ret={o['ret']}"
    if r is not None:
        s += f" (replay ret={r['ret']}, {r['start_ns']}..{r['end_ns']} ns)"
    return s


ASYNC_DATA = False


def main():
    global ASYNC_DATA
    if len(sys.argv) == 4 and sys.argv[3] == "--async-data":
        ASYNC_DATA = True
        del sys.argv[3]
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    # I/O on pipes, sockets, devices is think time, left out of the replay (disp__nonfile;
    # the fds of such kinds that an open or a dup made are not followed here)
    orig = [o for o in dump(sys.argv[1])
            if o["fd_kind"] not in ("chr", "fifo", "sock", "other") or o["op"] in PATH_OPS]
    res = dump(sys.argv[2])
    per = defaultdict(list)
    for r in res:
        per[(r["pid"], r["tid"])].append(r)
    # the result of each original op: the i-th op of its thread
    seen = defaultdict(int)
    pairs = []
    bad = []
    for o in orig:
        th = (o["pid"], o["tid"])
        i = seen[th]
        seen[th] += 1
        if i >= len(per[th]) or per[th][i]["op"] != o["op"]:
            bad.append(f"thread {th}: op {i} {o['op']} not replayed as such")
            continue
        pairs.append((o, per[th][i]))
    for th, n in seen.items():
        if len(per[th]) != n:
            bad.append(f"thread {th}: {n} ops in the trace, {len(per[th])} replayed")
    for th in set(per) - set(seen):
        bad.append(f"thread {th}: not in the trace")
    if bad:
        print("\n".join(bad[:20]))
        return 1

    # each thread's ops one after the other; with --async-data (--engine io_uring, libaio)
    # reads and writes may overlap those before them, until an op of another kind
    for th, rs in per.items():
        ended = nondata = 0
        for b in rs:
            data = b["op"] in READS or b["op"] in WRITES
            after = nondata if ASYNC_DATA and data else ended
            if began(b) is not None and began(b) < after:
                bad.append(f"thread {th}: {show(b)} started at {b['start_ns']} before its "
                           f"previous ops ended at {after}")
            ended = max(ended, b["end_ns"])
            if not data:
                nondata = ended

    diff = []
    for o, r in pairs:
        why = differs(o, r)
        if why:
            diff.append(f"{why}: {show(o, r)}")

    # cross-thread order
    last_s = {}  # key -> index of its last structural op
    uses = defaultdict(dict)  # key -> thread -> index of its last use since
    nchecked = 0
    ncut_reads = 0
    minslack = None

    def need(a, b, key):
        nonlocal nchecked, minslack, ncut_reads
        oa, ra = pairs[a]
        ob, rb = pairs[b]
        if (oa["pid"], oa["tid"]) == (ob["pid"], ob["tid"]):
            return
        if began(rb) is None:
            return
        nchecked += 1
        ncut_reads += key[0] == "cut after a read"
        slack = began(rb) - ra["end_ns"]
        if minslack is None or slack < minslack:
            minslack = slack
        if slack < 0:
            bad.append(f"{key}: {show(ob, rb)} started {-slack} ns before {show(oa, ra)} "
                       f"ended")

    for o in orig:
        t = o["op"]
        if t in ("mkdir", "mkdirat", "rmdir") or t in SYMLINK or \
                (t == "unlinkat" and o["flags"] & AT_REMOVEDIR):
            CHANGED.add(o["path"])
        elif t in RENAME:
            CHANGED.update((o["path"], o["path2"]))
    writers = Writers()
    readers = Writers(reads=True)
    fdnames = {}
    bound = {}  # (pid, fd) -> (index, tid, end) of the open or dup that returned it
    for i, (o, _) in enumerate(pairs):
        for ws in (writers, readers):
            ws.cut(i, o, need)
            ws.wrote(i, o)
            ws.names(o)
        t = o["op"]
        if t == "close" and (o["pid"], o["fd"]) in bound:
            j, tid, end = bound[(o["pid"], o["fd"])]
            if tid != o["tid"] and o["start_ns"] < end:
                need(j, i, ("released", o["pid"], o["fd"]))
                continue
        name_fds(o, fdnames)
        if o["ret"] >= 0 and (t in OPEN or t in ("dup", "fcntl_dupfd")):
            bound[(o["pid"], o["ret"])] = (i, o["tid"], o["end_ns"])
        for key, mode in keys(o, fdnames):
            s = last_s.get(key)
            if s is not None:
                need(s, i, key)
            if mode == "u":
                uses[key][(o["pid"], o["tid"])] = i
            else:
                for j in uses[key].values():
                    need(j, i, key)
                uses[key].clear()
                last_s[key] = i
        names_exist(o)
    print(f"{len(pairs)} ops in {len(per)} threads; {nchecked} cross-thread orderings "
          f"checked ({ncut_reads} a cut's after a read; least slack {minslack} ns); "
          f"{len(diff)} outcomes differ; {len(bad)} violations")
    for line in diff[:10]:
        print("  " + line)
    for line in bad[:10]:
        print("  " + line)
    return 1 if bad or diff else 0


if __name__ == "__main__":
    sys.exit(main())
