#!/usr/bin/env python3
"""stress_gen.py SEED [--ops N] [--threads N] [--avoid FEATURE,...]: writes on stdout a random
trace description for replay_mktrace (one op a line: PID TID START_US END_US OP k=v...), for
stress-testing the replay's cross-thread order (tests/replay/test_stress_deps.sh).

The trace is self-consistent: it is what a real kernel could have returned to the threads
of 1-5 processes, simulated here op by op on a model of the name space (directories,
files, hard links, symlinks), of each process's fd table (fds shared by its threads, the
lowest free number, dup sharing the file position) and of file sizes. Ops that fail do so
as the kernel would (ENOENT, EEXIST, ENOTEMPTY).

Only what the replay can reproduce is generated (README, "What ioreel does not replay"):
 - no cross-thread order of data but a cut's after the writes and reads before it: a
   thread reads a file only where the bytes were there before the capture (read through the
   name it was prepared under) or where it wrote them itself (an async write: reaped by
   itself) since the file was last truncated; a file is truncated (O_TRUNC, truncate,
   ftruncate) with no fd open on it, one name and no async write in flight, and only by the
   one thread that ever read it, or (truncate, O_TRUNC) by the name the other threads' reads
   carried, that name and those above it left as they were since (Gen.renamed_since);
 - an fd with an io_uring request in flight stays open until the request is reaped (the
   kernel may look the fd up after the submit returned);
 - a pre-existing file is "latent" until first named: an rmdir must not find a file the
   trace never names (the replay cannot prepare it);
 - a symlink leads to a file in its own directory that its maker has looked up itself, and
   that name stays as it is from then on (the replay orders an op through a symlink after
   what it leads to as well, but this model and stress_check.py follow names, not links:
   tests/replay/test_deps_symlink_target.sh covers that order).

Features a known limitation or bug needs left out are named by --avoid (see AVOIDABLE).
Times: the ops of all threads are laid out one after the other, then an op whose later
conflicting ops (same fd, name, directory or file data, one of them changing it) start late
enough is stretched so that it overlaps other threads' ops; the trace is written in end
order (as the recorder writes it) or start order, which agree for every conflicting pair.
"""
import argparse
import random
import sys
from collections import defaultdict

AVOIDABLE = {
    # ops whose outcome depends on a directory above their parent: a directory renamed with
    # subdirectories, a lookup through a missing directory in one that another thread makes
    # or removes (ops are ordered by what made, moved or removed their parent only)
    "ancestors",
    # names below a directory the application renamed, for what the rename moved there
    # (what the file-set scan once prepared there, making the rename fail)
    "moved_children",
    # symlinks
    "symlink",
    # directory renames at all
    "dir_rename",
    # libaio and io_uring requests
    "async",
    # a cut (truncate, an O_TRUNC open) by a name after other threads' reads of the file by
    # that name (the replay's cut waits for those: replay_extent.c, readers)
    "cut_after_reads",
    # a name that was a file when first named (there before the capture, or opened with
    # O_CREAT without O_EXCL) made a directory later: the file-set scan prepares a directory
    # there, since paths lie below it
    "file_then_dir",
    # mkdir failing with EEXIST as the first op that names a file (the file-set scan takes
    # it for a directory)
    "mkdir_eexist_file",
    # reads of a file that was there before the capture, through an fd opened before its
    # name was made anew (renamed over, removed and created again): the file-set scan
    # counts them for the new file, whose size is the application's, not for the old one
    "reads_after_remake",
    # getdents64 by one thread on a directory another thread removes afterwards, or through
    # an fd on a directory removed before, where the fd was opened by another name than the
    # one the directory is removed by (renamed since): an fd op, ordered by the name it
    # carries or else by the one its fd was opened by, so not before the rmdir (which makes
    # it fail with ENOENT) or after
    "rmdir_listed_unnamed",
    # a directory that was there before the capture renamed or removed, where no op of the
    # trace names anything below it nor tells it is a directory before: the file-set scan
    # prepares it as a file
    "unknown_dir",
}

ROOT = "/s"
# ops that change what a name (or the names below it) leads to: a file's reads, which the
# replay keeps under the name they carry, may be left behind
NAME_OPS = {"rename", "renameat", "renameat2", "link", "linkat", "unlink", "unlinkat", "rmdir",
            "symlink", "symlinkat", "creat"}


def parent(p):
    return p.rsplit("/", 1)[0]


def base(p):
    return p.rsplit("/", 1)[1]


def ancestors(p):
    out = []
    while True:
        p = parent(p)
        if not p:
            break
        out.append(p)
    return out


class Inode:
    n = 0

    def __init__(self, size=0, pre_name=None):
        Inode.n += 1
        self.id = Inode.n
        self.size = size
        self.pre_size = size if pre_name else 0
        self.pre_name = pre_name
        self.nlink = 1
        self.nopen = 0  # fds (in any process) on it
        self.writes_in_flight = 0  # async writes submitted, not reaped yet
        self.private = None  # tid: only it opens the file and uses its fds
        self.own = defaultdict(list)  # tid -> [a, b) it wrote since the last truncation
        # threads that read bytes of it; per thread, the name its reads carried and the
        # index of the first of them, and those whose reads a cut by name is not ordered
        # after (a read that did not carry the file's name, or carried another one: the
        # replay keeps a file's reads by the name they carry)
        self.readers = set()
        self.read_as = {}
        self.unordered_readers = set()

    def read(self, tid, name, at):
        """a read by tid, op index at, carrying name (None: none)"""
        prev = self.read_as.setdefault(tid, (name, at))
        if name is None or prev[0] != name:
            self.unordered_readers.add(tid)
        self.readers.add(tid)

    def may_truncate(self, tid, name=None, unchanged=None):
        """a cut by tid (by name; unchanged(name, at): nothing renamed it or what lies above
        it since op index at): other threads' writes before it are ordered (the replay's
        cut waits for those that reached beyond it), their reads when they carried that
        name; async writes in flight would land before or after it; an fd open across it
        would write after it, which is ordered after it only when the write carries the
        file's name (so reads of its bytes)"""
        others = self.readers - {tid}
        ordered = name is not None and not others & self.unordered_readers and \
            all(self.read_as[t][0] == name and unchanged(name, self.read_as[t][1])
                for t in others)
        return self.nopen == 0 and self.nlink == 1 and (not others or ordered) and \
            not self.writes_in_flight

    def truncate(self, size):
        self.size = size
        self.pre_size = 0
        self.own.clear()

    def wrote(self, tid, a, b):
        iv = sorted(self.own[tid] + [(a, b)])
        out = []
        for x, y in iv:
            if out and x <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], y))
            else:
                out.append((x, y))
        self.own[tid] = out
        self.size = max(self.size, b)


class Node:
    def __init__(self, kind, ino=None, content=None):
        self.kind = kind  # f d l
        self.ino = ino
        self.content = content  # symlink: a name in its directory
        self.moved = False  # a directory rename moved it here
        self.pinned = False  # a symlink leads to it: the name stays as it is
        self.seen = False  # named by an op already
        self.dead = False  # a directory removed
        self.removed_as = None  # the name it was removed by
        self.pre = False  # a directory there before the capture (below the top ones)
        # threads that listed the directory (getdents64): whether by its name then (the
        # replay orders an rmdir after those only)
        self.listers = {}


class OFD:  # an open file description: what dup shares
    def __init__(self, node, ino, name, acc, isdir=False):
        self.node = node  # what name led to (a symlink's destination for one)
        self.ino = ino
        self.name = name
        self.acc = acc  # r w rw
        self.pos = 0
        self.isdir = isdir
        self.dents = 0
        # reads of the bytes that were there before the capture count for the size the
        # replay prepares only through the name the file had then
        self.pre_ok = ino is not None and ino.pre_name == name and ino.pre_size > 0


class Proc:
    def __init__(self, pid):
        self.pid = pid
        self.fds = {}
        self.ntids = 0
        self.inflight = []  # async requests submitted, not reaped yet

    def lowest(self, start=3):
        fd = start
        while fd in self.fds:
            fd += 1
        return fd


class Thread:
    def __init__(self, proc, tid, budget):
        self.proc = proc
        self.tid = tid
        self.budget = budget


class Gen:
    def __init__(self, seed, nops, nthreads, avoid, swap_links=False):
        self.r = random.Random(seed)
        r = self.r
        self.avoid = avoid
        # --swap-links: also op_link_swap (off by default: the kept seeds stay as they were)
        self.op_table = self.OPS + ([(Gen.op_link_swap, 1)] if swap_links else [])
        self.nops = nops if nops else r.choice([150, 400, 800, 1500, 2500])
        self.max_threads = nthreads if nthreads else r.choice([1, 2, 4, 8, 16, 25, 40, 40, 70,
                                                               150])
        self.npids = r.randint(1, min(5, self.max_threads))
        self.target_live = r.randint(1, min(12, self.max_threads))
        self.by_end = r.random() < 0.7
        self.fd_paths = r.random() < 0.5  # fd ops carry the fd's file (as captures may)
        self.t = 10
        self.ops = []  # [start, end, tid, line, resources]
        self.ns = {}
        self.latent = {}  # pre-existing files not named yet: path -> size
        self.made = set()  # names an op made (created, renamed or linked to, mkdir...)
        self.dir_named = set()  # names that an op named something below, or opened as a dir
        self.first = {}  # name -> what its first op said: made, file (there or maybe), other
        self.procs = [Proc(1000 * (i + 1)) for i in range(self.npids)]
        self.threads = []
        self.live = []
        self.newname = 0
        self.renamed = {}  # name -> index of the last op of NAME_OPS on it (emit)
        self.ndirs = 0
        self.ns[ROOT] = Node("d")
        for i in range(r.randint(1, 4)):
            d = f"{ROOT}/d{i}"
            self.ns[d] = Node("d")
            for j in range(r.randint(2, 12)):
                self.latent[f"{d}/p{j}"] = r.choice([1, 2, 4, 8, 16, 64]) * 4096 + \
                    r.choice([0, 0, 100, 4000])
            if r.random() < 0.5:
                e = f"{d}/e0"
                self.ns[e] = Node("d")
                self.ns[e].pre = True
                for j in range(r.randint(1, 5)):
                    self.latent[f"{e}/q{j}"] = r.choice([1, 4, 16]) * 4096

    # ---- threads ----

    def spawn(self):
        if len(self.threads) >= self.max_threads:
            return None
        p = self.r.choice(self.procs)
        # one process holds most threads: many threads share its fds
        if self.r.random() < 0.5:
            p = self.procs[0]
        tid = p.pid + p.ntids
        p.ntids += 1
        budget = self.r.choice([1, 3, 10, 30, 100, 300, 100000])
        if self.max_threads > 40 and self.r.random() < 0.7:
            budget = self.r.choice([1, 2, 3, 5, 10])  # many short-lived threads
        th = Thread(p, tid, budget)
        self.threads.append(th)
        self.live.append(th)
        return th

    def pick_thread(self):
        while len(self.live) < self.target_live and self.spawn():
            pass
        if not self.live and not self.spawn():
            # every thread has used its budget: the last ones go on
            self.live.append(self.threads[-1])
            self.threads[-1].budget = 10**9
        return self.r.choice(self.live)

    def spent(self, th):
        th.budget -= 1
        if th.budget <= 0 and th in self.live:
            self.live.remove(th)

    # ---- output ----

    def emit(self, th, op, res, **kv):
        gap = self.r.choice([1, 1, 2, 3, 5]) if self.r.random() < 0.97 else \
            self.r.choice([50, 200, 1000])
        start = self.t
        self.t += gap + 1
        fields = " ".join(f"{k}={v}" for k, v in kv.items())
        line = f"{th.proc.pid} {th.tid} {{s}} {{e}} {op} {fields}".rstrip()
        for k in ("path", "path2") if op in NAME_OPS else ():
            if k in kv:
                self.renamed[kv[k]] = len(self.ops)
        self.ops.append([start, start, th.tid, line, res, None])
        self.spent(th)
        return len(self.ops) - 1

    def finish(self):
        """stretches ops into the later ops of other threads that do not conflict"""
        nxt_any, nxt_struct, nxt_thread = {}, {}, {}
        big = 1 << 62
        for o in reversed(self.ops):
            start, _, tid, _, res, _ = o
            limit = nxt_thread.get(tid, big)
            for key, mode in res:
                limit = min(limit, nxt_any.get(key, big) if mode == "s" else
                            nxt_struct.get(key, big))
            room = limit - 1 - start
            if room > 0 and self.r.random() < 0.5:
                o[1] = start + self.r.randint(0, min(room, self.r.choice([2, 10, 100])))
            for key, mode in res:
                nxt_any[key] = start
                if mode == "s":
                    nxt_struct[key] = start
            nxt_thread[tid] = start
        order = sorted(self.ops, key=(lambda o: (o[1], o[0])) if self.by_end else
                       (lambda o: o[0]))
        pids = {o[3].split()[0] for o in self.ops}
        out = [f"# stress_gen: {len(self.ops)} ops, {len({o[2] for o in self.ops})} threads in "
               f"{len(pids)} processes, {'end' if self.by_end else 'start'} order"]
        for o in order:
            # a completion's start is its request's submission (FORMAT.md)
            shown = self.ops[o[5]][0] if o[5] is not None else o[0]
            out.append(o[3].format(s=shown, e=o[1]))
        return "\n".join(out) + "\n"

    # ---- the name space ----

    def add(self, p, node, made=True):
        """node at p; made: by an op that says it was not there (O_EXCL, rename, link...),
        "maybe": O_CREAT without O_EXCL, False: there before the capture"""
        self.ns[p] = node
        if made:
            self.made.add(p)
        if p not in self.first:
            self.first[p] = "made" if made is True else "file"
        return node

    def get(self, p):
        """the node at p, materializing a latent pre-existing file"""
        n = self.ns.get(p)
        if n is None and p in self.latent:
            n = self.add(p, Node("f", Inode(self.latent.pop(p), pre_name=p)), made=False)
        return n

    def peek(self, p):
        """the node at p, or what a latent pre-existing file would be: never made one"""
        n = self.ns.get(p)
        if n is None and p in self.latent:
            n = Node("f", Inode(self.latent[p], pre_name=p))
        return n

    def known_dir(self, d):
        """the file-set scan tells d was a directory: made by the application, or something
        below it named, or opened as one"""
        return d in self.dir_named or d in self.made

    def exists(self, p):
        return p in self.ns or p in self.latent

    def unnamed(self, p):
        """a directory there before the capture that no op has named yet: as a latent file,
        the replay knows nothing of it (an rmdir of its parent must not find it)"""
        n = self.ns.get(p)
        return n is not None and n.pre and p not in self.first and p not in self.dir_named

    def purge(self, d):
        """d is removed or renamed: what below it no op named is gone for good"""
        for x in self.subtree(d):
            if self.unnamed(x):
                del self.ns[x]
        for x in self.latent_children(d):
            del self.latent[x]

    def children(self, d):
        pre = d + "/"
        return [p for p in self.ns if p.startswith(pre) and "/" not in p[len(pre):] and
                not self.unnamed(p)]

    def latent_children(self, d):
        pre = d + "/"
        return [p for p in self.latent if p.startswith(pre)]

    def usable(self, p, th=None):
        n = self.ns.get(p)
        if n is None:
            return p in self.latent
        if n.moved and "moved_children" in self.avoid:
            return False
        if n.kind == "f" and n.ino.private is not None and th is not None and \
                n.ino.private != th.tid:
            return False
        return True

    def dirs(self, th=None):
        return [p for p, n in self.ns.items() if n.kind == "d" and self.usable(p, th)]

    def files(self, th=None, latent=True):
        out = [p for p, n in self.ns.items() if n.kind == "f" and self.usable(p, th)]
        if latent:
            out += list(self.latent)
        return out

    def links(self):
        return [p for p, n in self.ns.items() if n.kind == "l" and self.usable(p)]

    def fresh_name(self, d):
        """a name in d that does not exist (reused names make EEXIST and ENOENT)"""
        for _ in range(10):
            p = f"{d}/n{self.r.randint(0, 7)}"
            if not self.exists(p):
                return p
        self.newname += 1
        return f"{d}/m{self.newname}"

    def missing(self, th):
        """a name that does not exist, in an existing or a missing directory"""
        ds = self.dirs(th)
        d = self.r.choice(ds)
        if self.r.random() < 0.2 and "ancestors" not in self.avoid:
            for _ in range(5):
                x = f"{d}/x{self.r.randint(0, 3)}"
                if not self.exists(x):
                    return f"{x}/y{self.r.randint(0, 3)}"
        return self.fresh_name(d)

    def res_path(self, p, mode):
        """a path op's resources: the name, and every directory above (used)"""
        up = ancestors(p)
        self.dir_named.update(up)
        self.first.setdefault(p, "other")
        return [(("N", p), mode)] + [(("D", a), "u") for a in up]

    # ---- fds ----

    def fds(self, th, pred=lambda o: True):
        out = []
        for fd, o in th.proc.fds.items():
            if o.ino is not None and o.ino.private not in (None, th.tid):
                continue
            if pred(o):
                out.append(fd)
        return out

    def fdkv(self, th, fd):
        o = th.proc.fds[fd]
        kv = {"fd": fd}
        if self.fd_paths and o.name and self.ns.get(o.name) is o.node:
            kv["path"] = o.name
        if o.isdir:
            kv["kind"] = "dir"
        return kv

    def fdres(self, th, fd, mode="u"):
        return [(("F", th.proc.pid, fd), mode)]

    def install(self, th, ofd, fd=None):
        if fd is None:
            fd = th.proc.lowest()
        th.proc.fds[fd] = ofd
        if ofd.ino is not None:
            ofd.ino.nopen += 1
        return fd

    def drop_fd(self, th, fd):
        o = th.proc.fds.pop(fd)
        if o.ino is not None:
            o.ino.nopen -= 1

    # ---- ops ----

    def op_open(self, th):
        r = self.r
        names = self.files(th) + self.links()
        if not names:
            return False
        p = r.choice(names)
        n = self.get(p)
        node = n
        if n.kind == "l":
            node = self.ns[f"{parent(p)}/{n.content}"]
        ino = node.ino
        if ino.private is not None and ino.private != th.tid:
            return False
        acc = r.choice(["r", "r", "rw", "w"])
        flags = {"r": "O_RDONLY", "rw": "O_RDWR", "w": "O_WRONLY"}[acc]
        res = self.res_path(p, "u")
        if n.kind == "l":
            res += self.res_path(f"{parent(p)}/{n.content}", "u")
        creat = n.seen and r.random() < 0.15 and acc != "r"
        trunc = acc != "r" and r.random() < 0.2 and self.may_cut(ino, th, p) and \
            n.kind == "f"
        if creat:
            flags += "|O_CREAT"
            res[0] = (res[0][0], "s")
        if trunc:
            flags += "|O_TRUNC"
            res[0] = (res[0][0], "s")
            res.append((("I", ino.id), "s"))
            ino.truncate(0)
        n.seen = True
        fd = self.install(th, OFD(node, ino, p, acc))
        res += self.fdres(th, fd, "s")
        kv = {"path": p, "flags": flags}
        if creat:
            kv["mode"] = "0644"
        self.emit(th, "openat", res, fd=-100, **kv, ret=fd)
        return True

    def op_create(self, th):
        r = self.r
        ds = [d for d in self.dirs(th) if d != ROOT or r.random() < 0.1]
        d = r.choice(ds or [ROOT])
        p = self.fresh_name(d)
        excl = r.random() < 0.7
        acc = r.choice(["w", "rw"])
        flags = {"rw": "O_RDWR", "w": "O_WRONLY"}[acc] + "|O_CREAT" + ("|O_EXCL" if excl else "")
        if r.random() < 0.3:
            flags += "|O_TRUNC"
        ino = Inode()
        if r.random() < 0.3:
            ino.private = th.tid
        n = self.add(p, Node("f", ino), made=True if excl else "maybe")
        n.seen = True
        fd = self.install(th, OFD(n, ino, p, acc))
        self.emit(th, "openat", self.res_path(p, "s") + self.fdres(th, fd, "s"), fd=-100,
                  path=p, flags=flags, mode="0644", ret=fd)
        return True

    def op_create_exists(self, th):
        names = [p for p in self.files(th)]
        if not names:
            return False
        p = self.r.choice(names)
        self.get(p).seen = True
        self.emit(th, "openat", self.res_path(p, "s"), fd=-100, path=p,
                  flags="O_WRONLY|O_CREAT|O_EXCL", mode="0644", ret="-EEXIST")
        return True

    def op_open_missing(self, th):
        p = self.missing(th)
        self.emit(th, "openat", self.res_path(p, "u"), fd=-100, path=p, flags="O_RDONLY",
                  ret="-ENOENT")
        return True

    def op_open_dir(self, th):
        d = self.r.choice(self.dirs(th))
        self.ns[d].seen = True
        self.dir_named.add(d)
        fd = self.install(th, OFD(self.ns[d], None, d, "r", isdir=True))
        self.emit(th, "openat", self.res_path(d, "u") + self.fdres(th, fd, "s"), fd=-100,
                  path=d, flags="O_RDONLY|O_DIRECTORY", ret=fd, kind="dir")
        return True

    def held(self, th):
        """fds with io_uring requests in flight: the kernel looks a request's fd up when it
        issues it, maybe after the submit returned (fsync: in a worker), so an application
        that closes it meanwhile races with its own request"""
        return {q["fd"] for q in th.proc.inflight if q["kind"] == "uring"}

    def op_close(self, th):
        fds = [fd for fd in self.fds(th) if fd not in self.held(th)]
        if not fds:
            return False
        fd = self.r.choice(fds)
        kv = self.fdkv(th, fd)
        self.drop_fd(th, fd)
        self.emit(th, "close", self.fdres(th, fd, "s"), **kv, ret=0)
        return True

    def op_dup(self, th):
        r = self.r
        fds = self.fds(th)
        if not fds:
            return False
        fd = r.choice(fds)
        o = th.proc.fds[fd]
        kv = self.fdkv(th, fd)
        res = self.fdres(th, fd)
        kind = r.choice(["dup", "dup2", "fcntl_dupfd"])
        if kind == "dup2":
            # over an fd of the process (closing it), or a free number
            others = [x for x in self.fds(th) if x != fd and r.random() < 0.5 and
                      x not in self.held(th)]
            new = r.choice(others) if others else th.proc.lowest(r.randint(3, 40))
            if new in th.proc.fds:
                self.drop_fd(th, new)
            kv["fd2"] = new
        elif kind == "fcntl_dupfd":
            new = th.proc.lowest(r.choice([3, 10, 20]))
            kv["fd2"] = new  # the minimum asked: the lowest free one at or above it
        else:
            new = th.proc.lowest()
        self.install(th, o, new)
        res += self.fdres(th, new, "s")
        self.emit(th, kind, res, **kv, ret=new)
        return True

    def read_region(self, th, o):
        """(off, len, ret) of a read this thread may make of o's file, or None"""
        r = self.r
        ino = o.ino
        ivs = list(ino.own.get(th.tid, []))
        if o.pre_ok and ino.pre_size and (ino.pre_name not in self.made or
                                          "reads_after_remake" not in self.avoid):
            ivs.append((0, ino.pre_size))
        if not ivs or r.random() < 0.05:
            off = ino.size + r.choice([0, 1, 4096])
            return off, 4096, 0  # at or past the end: nothing
        a, b = r.choice(ivs)
        assert b <= ino.size, (a, b, ino.size)
        named = self.fd_paths and o.name and self.ns.get(o.name) is o.node and \
            ino.nlink == 1
        ino.read(th.tid, o.name if named else None, len(self.ops))
        off = a + r.randrange(0, max(1, (b - a) // 512)) * 512
        if off >= b:
            off = a
        ln = r.choice([512, 4096, 4096, 8192, 65536])
        if off + ln <= b:
            return off, ln, ln
        if b == ino.size:
            return off, ln, b - off  # a short read at the end of the file
        return off, b - off, b - off

    def op_read(self, th):
        r = self.r
        fds = self.fds(th, lambda o: not o.isdir and o.acc in ("r", "rw"))
        if not fds:
            return False
        fd = r.choice(fds)
        o = th.proc.fds[fd]
        off, ln, ret = self.read_region(th, o)
        res = self.fdres(th, fd) + [(("I", o.ino.id), "u")]
        kv = self.fdkv(th, fd)
        self.emit_data(th, res, kv, o, off, ln, ret, ["read", "readv"],
                       ["pread64", "pread64", "preadv"])
        return True

    def op_write(self, th):
        r = self.r
        fds = self.fds(th, lambda o: not o.isdir and o.acc in ("w", "rw"))
        if not fds:
            return False
        fd = r.choice(fds)
        o = th.proc.fds[fd]
        ino = o.ino
        if r.random() < 0.5 and ino.own.get(th.tid):
            off = ino.own[th.tid][-1][1]  # go on from its last write
        else:
            off = r.randrange(0, 64) * 4096
        ln = r.choice([100, 512, 4096, 4096, 16384])
        ino.wrote(th.tid, off, off + ln)
        res = self.fdres(th, fd) + [(("I", ino.id), "u")]
        kv = self.fdkv(th, fd)
        self.emit_data(th, res, kv, o, off, ln, ln, ["write", "writev"],
                       ["pwrite64", "pwrite64", "pwritev"])
        return True

    def emit_data(self, th, res, kv, o, off, ln, ret, at_pos, positioned):
        """A read or write of ln bytes at off: 30 % of them at the fd's position (an lseek
        there first; the position is shared), the rest positioned."""
        r = self.r
        if r.random() < 0.3:
            self.emit(th, "lseek", res, **kv, off=off, mode=0, ret=off)
            o.pos = off + ret
            self.emit(th, r.choice(at_pos), res, **kv, off=off, len=ln, ret=ret)
        else:
            self.emit(th, r.choice(positioned), res, **kv, off=off, len=ln, ret=ret)

    def op_fdmisc(self, th):
        r = self.r
        fds = self.fds(th, lambda o: not o.isdir)
        if not fds:
            return False
        fd = r.choice(fds)
        o = th.proc.fds[fd]
        kv = self.fdkv(th, fd)
        res = self.fdres(th, fd)
        c = r.choice(["fstat", "fsync", "fdatasync", "lseek_end", "lseek_cur", "fadvise64",
                      "ftruncate", "fallocate"])
        if c == "lseek_end":
            o.pos = o.ino.size
            self.emit(th, "lseek", res + [(("I", o.ino.id), "u")], **kv, off=0, mode=2,
                      ret=o.ino.size)
        elif c == "lseek_cur":
            self.emit(th, "lseek", res, **kv, off=0, mode=1, ret=o.pos)
        elif c == "fadvise64":
            self.emit(th, c, res, **kv, off=0, len=0, mode=r.choice([0, 2, 4]), ret=0)
        elif c == "ftruncate":
            if o.ino.private != th.tid or o.acc == "r" or o.ino.readers - {th.tid}:
                return False
            size = r.choice([0, 4096, 100000])
            o.ino.truncate(size)
            self.emit(th, c, res + [(("I", o.ino.id), "s")], **kv, len=size, ret=0)
        elif c == "fallocate":
            if o.acc == "r":
                return False
            off, ln = r.randrange(0, 16) * 4096, 8192
            o.ino.wrote(th.tid, off, off + ln)
            self.emit(th, c, res + [(("I", o.ino.id), "u")], **kv, mode=0, off=off, len=ln,
                      ret=0)
        else:
            self.emit(th, c, res, **kv, ret=0)
        return True

    def op_getdents(self, th):
        fds = self.fds(th, lambda o: o.isdir)
        if not fds:
            return False
        fd = self.r.choice(fds)
        o = th.proc.fds[fd]
        kv = self.fdkv(th, fd)
        res = self.fdres(th, fd)
        if o.node.dead:
            # ENOENT, as the kernel has it: ordered after the rmdir by the name it removed
            # (what the fd was opened by, as a capture gives it, or, without fd paths, as
            # the replay finds it from the open)
            if o.name == o.node.removed_as:
                if self.fd_paths:
                    kv["path"] = o.name
                res.append((("D", o.name), "u"))
            elif "rmdir_listed_unnamed" in self.avoid:
                return False
            ret = "-ENOENT"
        else:
            ret = 0 if o.dents else 48
            # its last listing counts: those before come before it; ordered by the name the
            # fd was opened by (or the one it carries: the same) while that name is the
            # directory's
            named = o.node.listers[th.tid] = self.ns.get(o.name) is o.node
            if named:
                res.append((("D", o.name), "u"))
        o.dents += 1
        self.emit(th, "getdents64", res, **kv, len=32768, ret=ret)
        return True

    def op_stat(self, th):
        r = self.r
        if r.random() < 0.25:
            p = self.missing(th)
            self.emit(th, r.choice(["stat", "lstat", "newfstatat", "statx", "access"]),
                      self.res_path(p, "u"), path=p, ret="-ENOENT")
            return True
        names = self.files(th) + self.dirs(th) + self.links()
        p = r.choice(names)
        n = self.get(p)
        n.seen = True
        res = self.res_path(p, "u")
        op = r.choice(["stat", "lstat", "newfstatat", "statx", "access"])
        if n.kind == "l":
            res += self.res_path(f"{parent(p)}/{n.content}", "u")
        kv = {"fd": -100} if op in ("newfstatat", "statx") else {}
        if op == "access":
            kv["mode"] = 0
        elif n.kind in ("d", "f"):
            # what it found (FORMAT.md, "The stat family"): the scan knows the kind then,
            # as an O_DIRECTORY open tells it
            kv["subop"] = 4 if n.kind == "d" else 8
            if n.kind == "d":
                self.dir_named.add(p)
        self.emit(th, op, res, **kv, path=p, ret=0)
        return True

    def op_mkdir(self, th):
        r = self.r
        d = r.choice(self.dirs(th))
        if r.random() < 0.15:
            ex = [x for x in self.dirs(th) if x != ROOT] + [
                x for x in self.files(th, latent=False)
                if self.ns[x].seen or "mkdir_eexist_file" not in self.avoid]
            if ex:
                p = r.choice(ex)
                self.ns[p].seen = True
                self.emit(th, "mkdir", self.res_path(p, "s") + [(("D", p), "s")], path=p,
                          mode="0755", ret="-EEXIST")
                return True
        if len(ancestors(d)) > 4:
            return False
        p = self.fresh_name(d)
        if self.first.get(p) == "file" and "file_then_dir" in self.avoid:
            return False
        self.ns[p] = Node("d")
        self.ns[p].seen = True
        self.made.add(p)
        self.emit(th, "mkdir", self.res_path(p, "s") + [(("D", p), "s")], path=p,
                  mode="0755", ret=0)
        return True

    def op_rmdir(self, th):
        r = self.r
        ds = [d for d in self.dirs(th) if d != ROOT]
        if not ds or r.random() < 0.1:
            p = self.missing(th)
            self.emit(th, "rmdir", self.res_path(p, "s") + [(("D", p), "s")], path=p,
                      ret="-ENOENT")
            return True
        # empty ones first: removing is the point
        empty = [d for d in ds if not self.children(d)]
        d = r.choice(empty if empty and r.random() < 0.8 else ds)
        res = self.res_path(d, "s") + [(("D", d), "s")]
        self.ns[d].seen = True
        if self.children(d):
            self.emit(th, "rmdir", res, path=d, ret="-ENOTEMPTY")
            return True
        if self.unnamed_listers(d, th) and "rmdir_listed_unnamed" in self.avoid:
            return False
        if not self.known_dir(d) and "unknown_dir" in self.avoid:
            return False
        self.purge(d)  # never named: the replay does not have them either
        self.remove_dir(d)
        if r.random() < 0.5:
            self.emit(th, "rmdir", res, path=d, ret=0)
        else:
            self.emit(th, "unlinkat", res, fd=-100, path=d, flags="AT_REMOVEDIR", ret=0)
        return True

    def unnamed_listers(self, d, th):
        """other threads listed d through an fd without its name: not ordered before"""
        return any(not named for t, named in self.ns[d].listers.items() if t != th.tid)

    def remove_dir(self, d):
        n = self.ns.pop(d)
        n.dead = True
        n.removed_as = d

    def op_unlink(self, th):
        r = self.r
        names = [p for p in self.files(th) + self.links() if not self.peek(p).pinned]
        if not names or r.random() < 0.1:
            p = self.missing(th)
            self.emit(th, "unlink", self.res_path(p, "s"), path=p, ret="-ENOENT")
            return True
        p = r.choice(names)
        n = self.get(p)
        res = self.res_path(p, "s")
        if n.kind == "f":
            n.ino.nlink -= 1
        del self.ns[p]
        self.emit(th, r.choice(["unlink", "unlinkat"]), res, path=p, ret=0)
        return True

    def subtree(self, d):
        pre = d + "/"
        return [p for p in self.ns if p.startswith(pre)]

    def op_rename(self, th):
        r = self.r
        if r.random() < 0.1:
            p = self.missing(th)
            q = self.fresh_name(r.choice(self.dirs(th)))
            q_new = q not in self.first
            self.emit(th, "rename", self.res_path(p, "s") + self.res_path(q, "s") +
                      [(("D", p), "s"), (("D", q), "s")], path=p, path2=q, ret="-ENOENT")
            if q_new:
                # the missing source failed it: the scan learns nothing of q, whose first
                # op is still to come (an O_CREAT open there makes it a file first)
                del self.first[q]
            return True
        dirmove = r.random() < 0.2 and "dir_rename" not in self.avoid
        if dirmove:
            cands = [d for d in self.dirs(th) if d != ROOT and not any(
                self.ns[x].pinned or self.ns[x].kind == "l" for x in self.subtree(d))]
            if "unknown_dir" in self.avoid:
                cands = [d for d in cands if self.known_dir(d)]
            if "ancestors" in self.avoid:
                cands = [d for d in cands if not any(
                    self.ns[x].kind == "d" for x in self.subtree(d))]
            if not cands:
                return False
            p = r.choice(cands)
            self.purge(p)
            dests = [x for x in self.dirs(th) if x != p and not x.startswith(p + "/")]
            q = self.fresh_name(r.choice(dests))
            if self.first.get(q) == "file" and "file_then_dir" in self.avoid:
                return False
            if len(ancestors(q)) + max([0] + [x.count("/") - p.count("/")
                                              for x in self.subtree(p)]) > 6:
                return False
            res = self.res_path(p, "s") + self.res_path(q, "s") + \
                [(("D", p), "s"), (("D", q), "s")]
            for x in self.subtree(p):
                # what moves is named anew below q; what was never named is gone for good
                res.append((("N", x), "s"))
            sub = sorted(self.subtree(p))
            node = self.ns.pop(p)
            node.seen = True
            self.ns[q] = node
            self.made.add(q)
            for x in sub:
                n = self.ns.pop(x)
                n.moved = True
                self.add(q + x[len(p):], n)
            self.emit(th, r.choice(["rename", "renameat"]), res, path=p, path2=q, ret=0)
            return True
        names = [x for x in self.files(th) + self.links() if not self.peek(x).pinned]
        if not names:
            return False
        p = r.choice(names)
        n = self.peek(p)
        if r.random() < 0.3:
            # over an existing file
            over = [x for x in self.files(th) if x != p and not self.peek(x).pinned]
            if not over:
                return False
            q = r.choice(over)
        else:
            q = self.fresh_name(r.choice(self.dirs(th)))
        if n.kind == "l" and parent(p) != parent(q):
            return False  # its content names a file in its own directory
        n = self.get(p)
        n.seen = True
        m = self.get(q)
        res = self.res_path(p, "s") + self.res_path(q, "s") + \
            [(("D", p), "s"), (("D", q), "s")]
        if m is not None and m.kind == "f" and n.kind == "f" and m.ino is n.ino:
            pass  # two links of one file: rename(2) does nothing
        else:
            if m is not None and m.kind == "f":
                m.ino.nlink -= 1
            del self.ns[p]
            self.add(q, n)
        self.emit(th, r.choice(["rename", "renameat", "renameat2"]), res, path=p, path2=q,
                  ret=0)
        return True

    def op_link(self, th):
        r = self.r
        names = self.files(th)
        if not names:
            return False
        p = r.choice(names)
        n = self.get(p)
        n.seen = True
        if r.random() < 0.15:
            ex = [x for x in self.files(th) if x != p]
            if ex:
                q = r.choice(ex)
                self.get(q).seen = True
                self.emit(th, "link", self.res_path(p, "u") + self.res_path(q, "s"), path=p,
                          path2=q, ret="-EEXIST")
                return True
        q = self.fresh_name(r.choice(self.dirs(th)))
        n.ino.nlink += 1
        m = self.add(q, Node("f", n.ino))
        m.seen = True
        self.emit(th, r.choice(["link", "linkat"]), self.res_path(p, "u") +
                  self.res_path(q, "s"), path=p, path2=q, ret=0)
        return True

    def op_symlink(self, th):
        r = self.r
        if "symlink" in self.avoid:
            return False
        names = [p for p in self.files(th) if not self.peek(p).moved]
        if not names:
            return False
        p = r.choice(names)
        n = self.get(p)
        n.seen = True
        # the maker looks its destination up first: the replay orders that lookup after
        # whatever made the file, and the symlink after the lookup
        self.emit(th, "stat", self.res_path(p, "u"), path=p, ret=0)
        q = self.fresh_name(parent(p))
        n.pinned = True
        m = self.add(q, Node("l", content=base(p)))
        m.seen = True
        self.emit(th, "symlink", self.res_path(q, "s") + [(("D", q), "s")], path=q,
                  path2=base(p), ret=0)
        return True

    def op_link_swap(self, th):
        """ln -s p tmp; mv tmp q: the symlink q made anew to another file in its directory,
        which its maker looks up first, as for op_symlink"""
        r = self.r
        ls = self.links()
        if not ls:
            return False
        q = r.choice(ls)
        names = [p for p in self.files(th) if parent(p) == parent(q) and
                 not self.peek(p).moved]
        if not names:
            return False
        p = r.choice(names)
        n = self.get(p)
        n.seen = True
        self.emit(th, "stat", self.res_path(p, "u"), path=p, ret=0)
        n.pinned = True
        tmp = self.fresh_name(parent(q))
        m = self.add(tmp, Node("l", content=base(p)))
        m.seen = True
        self.emit(th, "symlink", self.res_path(tmp, "s") + [(("D", tmp), "s")], path=tmp,
                  path2=base(p), ret=0)
        self.get(q).seen = True
        res = self.res_path(tmp, "s") + self.res_path(q, "s") + \
            [(("D", tmp), "s"), (("D", q), "s")]
        del self.ns[tmp]
        self.add(q, m)
        self.emit(th, r.choice(["rename", "renameat"]), res, path=tmp, path2=q, ret=0)
        return True

    def op_readlink(self, th):
        ls = self.links()
        if not ls:
            return False
        p = self.r.choice(ls)
        c = self.ns[p].content
        self.emit(th, "readlink", self.res_path(p, "u"), path=p, path2=c, len=256,
                  ret=len(c))
        return True

    def renamed_since(self, p, at):
        """whether an op of NAME_OPS changed p or a directory above it since op index at"""
        return any(self.renamed.get(x, -1) >= at for x in [p] + ancestors(p))

    def may_cut(self, ino, th, p):
        """a cut of ino by name p (truncate, O_TRUNC)"""
        if "cut_after_reads" in self.avoid:
            return ino.may_truncate(th.tid)
        return ino.may_truncate(th.tid, p, lambda q, at: not self.renamed_since(q, at))

    def op_truncate(self, th):
        r = self.r
        names = [p for p in self.files(th) if self.may_cut(self.peek(p).ino, th, p)]
        if not names:
            return False
        p = r.choice(names)
        n = self.get(p)
        n.seen = True
        size = r.choice([0, 0, 4096, 50000])
        n.ino.truncate(size)
        self.emit(th, "truncate", self.res_path(p, "s") + [(("I", n.ino.id), "s")], path=p,
                  len=size, ret=0)
        return True

    def op_async_submit(self, th):
        """a libaio or io_uring request on an fd, in flight until a thread of the process
        reaps it; ids are reused once reaped"""
        r = self.r
        if "async" in self.avoid:
            return False
        fds = self.fds(th, lambda o: not o.isdir)
        if not fds:
            return False
        fd = r.choice(fds)
        o = th.proc.fds[fd]
        kind = r.choice(["aio", "uring"])
        ctx = {"aio": 0x77, "uring": 9}[kind]
        busy = {q["aux"] for q in th.proc.inflight if q["kind"] == kind}
        free = [a for a in range(1, 7) if a not in busy]
        if not free:
            return False
        aux = r.choice(free)
        what = r.choice(["read", "read", "write", "fsync"])
        if what == "read" and o.acc in ("r", "rw"):
            off, ln, ret = self.read_region(th, o)
            sub = {"aio": 0, "uring": 22}[kind]
        elif what == "write" and o.acc in ("w", "rw"):
            off, ln = r.randrange(0, 64) * 4096, 4096
            ret = ln
            o.ino.size = max(o.ino.size, off + ln)
            o.ino.writes_in_flight += 1
            sub = {"aio": 1, "uring": 23}[kind]
        elif what == "fsync":
            off, ln, ret = 0, 0, 0
            sub = {"aio": 2, "uring": 3}[kind]
        else:
            return False
        key = ("A", th.proc.pid, kind, aux)
        i = self.emit(th, f"{kind}_submit", self.fdres(th, fd) + [(key, "s")],
                      **self.fdkv(th, fd), ctx=ctx, aux=aux, subop=sub, off=off, len=ln,
                      ret=1)
        th.proc.inflight.append({"kind": kind, "ctx": ctx, "aux": aux, "fd": fd, "sub": sub,
                                 "off": off, "len": ln, "ret": ret, "op": i, "tid": th.tid,
                                 "ino": o.ino if what == "write" else None})
        return True

    def op_async_complete(self, th):
        if not th.proc.inflight:
            return False
        q = self.r.choice(th.proc.inflight)
        th.proc.inflight.remove(q)
        if q["ino"] is not None:
            q["ino"].writes_in_flight -= 1
            if q["tid"] == th.tid:
                # reaped by its submitter: its bytes are that thread's to read (another
                # thread's reaping orders the read only when it carries the file's name)
                q["ino"].wrote(th.tid, q["off"], q["off"] + q["len"])
        key = ("A", th.proc.pid, q["kind"], q["aux"])
        i = self.emit(th, f"{q['kind']}_complete", [(key, "u")] + self.fdres(th, q["fd"]),
                      fd=q["fd"], ctx=q["ctx"],
                      aux=q["aux"], subop=q["sub"], off=q["off"], len=q["len"], ret=q["ret"])
        self.ops[i][5] = q["op"]
        return True

    def op_nonfile(self, th):
        """I/O on a pipe or a socket the process had before the capture: think time, left
        out of the replay (a thread's last op may be one: its worker is handed on then)"""
        kind, fd = self.r.choice([("fifo", 900), ("sock", 901)])
        ln = self.r.choice([1, 100, 4096])
        self.emit(th, self.r.choice(["read", "write"]), [], fd=fd, kind=kind, len=ln, ret=ln)
        return True

    def op_chmod(self, th):
        names = self.files(th)
        if not names:
            return False
        p = self.r.choice(names)
        self.get(p).seen = True
        self.emit(th, "chmod", self.res_path(p, "u"), path=p, mode="0644", ret=0)
        return True

    OPS = [
        (op_open, 10), (op_create, 6), (op_create_exists, 1), (op_open_missing, 2),
        (op_open_dir, 1), (op_close, 9), (op_dup, 2), (op_read, 14), (op_write, 8),
        (op_fdmisc, 4), (op_getdents, 1), (op_stat, 8), (op_mkdir, 2), (op_rmdir, 2),
        (op_unlink, 3), (op_rename, 3), (op_link, 1), (op_symlink, 1), (op_readlink, 1),
        (op_truncate, 1), (op_chmod, 1), (op_async_submit, 2), (op_async_complete, 2),
        (op_nonfile, 1),
    ]

    def one(self, th):
        fns = [f for f, _ in self.op_table]
        ws = [w for _, w in self.op_table]
        for _ in range(20):
            f = self.r.choices(fns, ws)[0]
            if f(self, th):
                return

    # ---- phases ----

    def burst_threads(self, k, proc=None):
        """k live threads (spawning new ones as the budget allows), of proc if given"""
        r = self.r
        pool = [t for t in self.live if proc is None or t.proc is proc]
        while len(pool) < k and len(self.threads) < self.max_threads:
            th = self.spawn()
            if proc is not None and th.proc is not proc:
                # moved over to proc: a thread of it instead
                th.proc.ntids -= 1
                th.proc = proc
                th.tid = proc.pid + proc.ntids
                proc.ntids += 1
            pool.append(th)
        r.shuffle(pool)
        return pool[:k]

    def burst_dir(self):
        """many threads make, look at and remove files in one directory, then another
        thread removes or renames the directory: it waits for all of them"""
        r = self.r
        ds = [d for d in self.dirs() if d != ROOT and not any(
            self.ns[x].pinned for x in self.subtree(d))]
        if not ds:
            return
        d = r.choice(ds)
        ths = self.burst_threads(r.randint(9, min(80, max(9, self.max_threads))))
        if len(ths) < 2:
            return
        for th in ths[1:]:
            p = self.fresh_name(d)
            ino = Inode()
            self.add(p, Node("f", ino)).seen = True
            fd = self.install(th, OFD(self.ns[p], ino, p, "w"))
            self.emit(th, "openat", self.res_path(p, "s") + self.fdres(th, fd, "s"),
                      fd=-100, path=p, flags="O_WRONLY|O_CREAT|O_EXCL", mode="0644", ret=fd)
            if r.random() < 0.5:
                ino.wrote(th.tid, 0, 4096)
                self.emit(th, "pwrite64", self.fdres(th, fd), fd=fd, off=0, len=4096,
                          ret=4096)
            self.drop_fd(th, fd)
            self.emit(th, "close", self.fdres(th, fd, "s"), fd=fd, ret=0)
            if r.random() < 0.8:
                ino.nlink -= 1
                del self.ns[p]
                self.emit(th, "unlink", self.res_path(p, "s"), path=p, ret=0)
        th = ths[0]
        if r.random() < 0.6:
            self.op_rmdir_of(th, d)
        else:
            self.emit(th, "stat", self.res_path(d, "u"), path=d, ret=0)

    def op_rmdir_of(self, th, d):
        res = self.res_path(d, "s") + [(("D", d), "s")]
        if self.children(d):
            self.emit(th, "rmdir", res, path=d, ret="-ENOTEMPTY")
            return
        if (self.unnamed_listers(d, th) and "rmdir_listed_unnamed" in self.avoid) or \
                (not self.known_dir(d) and "unknown_dir" in self.avoid):
            self.emit(th, "stat", self.res_path(d, "u"), path=d, ret=0)
            return
        self.purge(d)
        self.remove_dir(d)
        self.emit(th, "rmdir", res, path=d, ret=0)

    def burst_fd(self):
        """one thread opens a file, many threads of its process read through the fd, one
        closes it: the close waits for all of them"""
        r = self.r
        proc = self.procs[0] if r.random() < 0.7 else r.choice(self.procs)
        ths = self.burst_threads(r.randint(9, min(80, max(9, self.max_threads))), proc)
        if len(ths) < 2:
            return
        names = [p for p in self.files(ths[0]) if p in self.latent or
                 (self.ns[p].ino.pre_size and self.ns[p].ino.pre_name == p)]
        if not names:
            return
        p = r.choice(names)
        n = self.get(p)
        if n.ino.private is not None or not n.ino.pre_size:
            return
        n.seen = True
        th = ths[0]
        fd = self.install(th, OFD(n, n.ino, p, "r"))
        self.emit(th, "openat", self.res_path(p, "u") + self.fdres(th, fd, "s"), fd=-100,
                  path=p, flags="O_RDONLY", ret=fd)
        for t in ths[1:] * r.choice([1, 1, 2]):
            off, ln, ret = self.read_region(t, th.proc.fds[fd])
            self.emit(t, "pread64", self.fdres(t, fd), **self.fdkv(t, fd), off=off, len=ln,
                      ret=ret)
        closer = r.choice(ths)
        kv = self.fdkv(closer, fd)
        self.drop_fd(closer, fd)
        self.emit(closer, "close", self.fdres(closer, fd, "s"), **kv, ret=0)

    def burst_name(self):
        """many threads (of any process) open one name, then one renames or removes it"""
        r = self.r
        names = [p for p in self.files() if not self.peek(p).pinned]
        if not names:
            return
        p = r.choice(names)
        if self.peek(p).ino.private is not None:
            return
        ths = self.burst_threads(r.randint(9, min(80, max(9, self.max_threads))))
        if len(ths) < 2:
            return
        n = self.get(p)
        n.seen = True
        for t in ths[1:]:
            fd = self.install(t, OFD(n, n.ino, p, "r"))
            self.emit(t, "openat", self.res_path(p, "u") + self.fdres(t, fd, "s"), fd=-100,
                      path=p, flags="O_RDONLY", ret=fd)
            if r.random() < 0.5:
                kv = self.fdkv(t, fd)
                self.drop_fd(t, fd)
                self.emit(t, "close", self.fdres(t, fd, "s"), **kv, ret=0)
        th = ths[0]
        res = self.res_path(p, "s") + [(("D", p), "s")]
        if r.random() < 0.5:
            n.ino.nlink -= 1
            del self.ns[p]
            self.emit(th, "unlink", res, path=p, ret=0)
        else:
            q = self.fresh_name(parent(p))
            del self.ns[p]
            self.add(q, n)
            self.emit(th, "rename", res + self.res_path(q, "s"), path=p, path2=q, ret=0)

    def long_run(self):
        """one thread alone for a long stretch: afap segments are cut short"""
        th = self.pick_thread()
        th.budget += 1000
        for _ in range(self.r.randint(50, 400)):
            f = self.r.choice([Gen.op_read, Gen.op_read, Gen.op_write, Gen.op_stat,
                               Gen.op_fdmisc])
            if not f(self, th):
                self.op_open(th) or self.op_create(th)

    def run(self):
        r = self.r
        while len(self.ops) < self.nops:
            x = r.random()
            if x < 0.03:
                self.burst_dir()
            elif x < 0.06:
                self.burst_fd()
            elif x < 0.08:
                self.burst_name()
            elif x < 0.10:
                self.long_run()
            else:
                self.one(self.pick_thread())
        return self.finish()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--ops", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--avoid", default="", help=",".join(sorted(AVOIDABLE)))
    ap.add_argument("--swap-links", action="store_true",
                    help="also swap symlinks for others (ln -s p tmp; mv tmp link)")
    a = ap.parse_args()
    avoid = set(x for x in a.avoid.split(",") if x)
    bad = avoid - AVOIDABLE
    if bad:
        ap.error(f"unknown feature(s) {','.join(sorted(bad))}")
    sys.stdout.write(Gen(a.seed, a.ops, a.threads, avoid, a.swap_links).run())


if __name__ == "__main__":
    main()
