#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_record.py - prove "ioreel record" right against ioworkload's own log.

    check_record.py check --log L --dump D.jsonl --info I.json --roots DIR[,DIR...]
    check_record.py run --ioreel BIN --workload BIN [--threads N] [--rounds N] [--keep]
                        [--attach [--attach-wait S]]
    check_record.py coverage --log L

check: every op the workload logged must be in the trace, one to one, with the same type,
path, fd, offset, length, return value (and whatever else the log line states), from the
same pid and tid, and in the same order within the thread as in the log; its entry and
exit times must lie within the times the workload noted around the call. The trace's ops
are first cut down to the workload's files: ops whose path - given, or found through the
trace's own fd table (opens, dups, closes; fds inherited across fork and exec), or through
an mmap for msync - lies under one of the roots. Trace ops on those files that the log does
not have are reported too. lost_events must be in the trace meta and be 0.

  io_uring completions are matched by (pid, user_data) alone: the kernel may
  complete a request on any task, so their tid and place in a thread say nothing.

run: makes scratch dirs, records the workload under "ioreel record -- CMD" (or, with
--attach, starts it, lets it open a file and chdir, and attaches "ioreel record -p PID":
then that fd and the cwd must come from /proc), dumps, checks, cleans up. Exit 77 only when this ioreel has no "record", "dump" or "info" yet.

coverage: the log itself covers every op type that ioreel records (a test of the workload).

Exit 0 = pass, 1 = mismatches (each printed), 2 = usage, 77 = skipped.
"""
import argparse
import bisect
import difflib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

# Every op type of format/reel.h, by reel_op__name(): the workload must cover them all.
RECORDED_OPS = [
    "open", "openat", "openat2", "creat", "close", "read", "pread64", "readv", "preadv",
    "preadv2", "write", "pwrite64", "writev", "pwritev", "pwritev2", "lseek", "fsync",
    "fdatasync", "sync_file_range", "syncfs", "stat", "lstat", "newfstatat", "statx", "fstat",
    "access", "faccessat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir",
    "mkdirat", "rmdir", "truncate", "ftruncate", "fallocate", "dup", "dup2", "dup3",
    "fcntl_dupfd", "getdents64", "fadvise64", "mmap", "msync", "aio_submit", "aio_complete",
    "uring_submit", "uring_complete",
    # format 1.1
    "copy_file_range", "sendfile", "chmod", "fchmod", "fchmodat", "chown", "lchown", "fchown",
    "fchownat", "utimensat", "link", "linkat", "symlink", "symlinkat", "readlink", "readlinkat",
    # format 1.2
    "munmap",
]
OPENS = {"open", "openat", "openat2", "creat"}
DUPS = {"dup", "dup2", "dup3", "fcntl_dupfd"}
SUBMITS = {"aio_submit", "uring_submit"}
COMPLETES = {"aio_complete": "aio_submit", "uring_complete": "uring_submit"}
# Fields a log line may state; the trace must agree on each one the line has.
COMPARED = ["op", "pid", "tid", "path", "path2", "fd", "fd_kind", "fd2", "offset", "len", "ret",
            "flags", "mode", "subop", "aux", "ctx"]
# The trace keeps these as unsigned 64-bit: lseek's -10 is stored as 2^64 - 10.
U64 = {"offset", "len", "aux", "ctx"}


def fail_usage(msg):
    print("check_record: " + msg, file=sys.stderr)
    sys.exit(2)


def read_jsonl(path, what):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except ValueError as e:
                raise SystemExit("check_record: %s line %d is not JSON: %s" % (what, n, e))
    return out


def under(path, roots):
    return path is not None and any(path == r or path.startswith(r + "/") for r in roots)


def describe(op):
    keys = ["op", "pid", "tid", "seq", "path", "path2", "fd", "fd2", "offset", "len", "ret",
            "flags", "mode", "subop", "aux", "ctx", "start_ns"]
    return " ".join("%s=%s" % (k, op[k]) for k in keys if op.get(k) is not None)


class Trace:
    """The trace's ops, each with the path it acts on as the trace itself tells it."""

    def __init__(self, ops, forks):
        self.ops = ops
        for i, op in enumerate(ops):
            op["_i"] = i
            for k in ("path", "path2"):
                if op.get(k) == "":
                    op[k] = None
        self._resolve(forks)

    def _resolve(self, forks):
        # Fd numbers are claimed when an open or dup returns and released when a close
        # starts, and an op reads the table when it starts: so a thread's close and another
        # thread's open that reuses the number order right even when their calls overlap.
        events = []
        for op in self.ops:
            name = op["op"]
            events.append((when(op), 1, op["_i"], "use"))
            if name == "close":
                events.append((op["start_ns"], 2, op["_i"], "release"))
            if (name in OPENS or name in DUPS) and op.get("ret", -1) >= 0:
                events.append((op["end_ns"], 0, op["_i"], "claim"))
            if name == "mmap" and op.get("ret", -1) >= 0:
                # an address is the mapping's once mmap returns, until a later mmap
                # reuses it (the last mapping that holds it is taken)
                events.append((op["end_ns"], 0, op["_i"], "map"))
            if name == "dup2" or name == "dup3":
                events.append((op["start_ns"], 2, op["_i"], "release2"))
        events.sort()
        tables, maps, seen = {}, {}, set()
        submits = {}
        for _t, _p, i, what in events:
            op = self.ops[i]
            pid = op["pid"]
            if pid not in seen:
                seen.add(pid)
                parent = forks.get(pid)
                tables[pid] = dict(tables.get(parent, {})) if parent else {}
                maps[pid] = list(maps.get(parent, [])) if parent else []
            table = tables[pid]
            name = op["op"]
            if what == "use":
                eff = op.get("path")
                if eff is None and name in COMPLETES:
                    eff = submits.get((pid, op.get("ctx"), op.get("aux")))
                elif eff is None and name == "msync":
                    for start, length, p in maps[pid]:
                        if start <= op.get("aux", 0) < start + length:
                            eff = p
                elif eff is None and op.get("fd", -1) >= 0:
                    eff = table.get(op["fd"])
                op["_path"] = eff
                if name in SUBMITS:
                    submits[(pid, op.get("ctx"), op.get("aux"))] = eff
            elif what == "map":
                maps[pid].append((op["ret"], op.get("len", 0), op.get("_path")))
            elif what == "release":
                table.pop(op.get("fd"), None)
            elif what == "release2" and op.get("ret", -1) >= 0:
                table.pop(op.get("fd2"), None)
            elif what == "claim":
                table[op["ret"]] = op.get("_path") if name in DUPS else op.get("path")


AT_EMPTY_PATH = 0x1000


def key(op):
    # fstat as glibc issues it is newfstatat(fd, "", AT_EMPTY_PATH): either name will do
    # (the log says which the kernel saw in "op" and allows the other in "alt_op").
    # Failed ops align with failed ops: a lost failure then shows as lost, not as a
    # wrong return value of its successful neighbour.
    name = op["op"]
    if name == "newfstatat" and (op.get("alt_op") == "fstat" or
                                 op.get("flags", 0) & AT_EMPTY_PATH):
        name = "fstat"
    return name + ("!" if op.get("ret", 0) < 0 else "")


def when(op):
    # a completion's start is its request's submission: it takes its place in a thread
    # when it is reaped
    return op["end_ns"] if op["op"] in COMPLETES else op["start_ns"]


class Checker:
    def __init__(self, log, trace_ops, meta, roots, exclude=()):
        self.problems = []
        self.kinds = Counter()
        self.by_field = Counter()
        self.by_op = Counter()
        self.matched = 0
        # info lines are context; ops before an attach ("record -p") are not in any trace
        self.log = [l for l in log if not l.get("info") and not l.get("before_capture")
                    and not l.get("nonfile")]
        self.nonfile = [l for l in log if l.get("nonfile") and not l.get("before_capture")]
        forks = {}
        for l in log:
            if l.get("info") and l["op"] == "fork":
                forks[l["ret"]] = l["pid"]
        self.trace = Trace(trace_ops, forks)
        self.meta = meta
        self.mono = int(meta["start_mono_ns"]) if "start_mono_ns" in meta else None
        self.roots = [os.path.realpath(r) for r in roots]
        self.exclude = set(exclude)
        # ops on an fd that is not open (EBADF) have no path in the log or the trace
        self.pathless = {(l["tid"], l["op"], l["fd"]) for l in self.log
                         if "path" not in l and "fd" in l and l["op"] not in COMPLETES}

    def problem(self, kind, text, op=None):
        self.kinds[kind] += 1
        if op:
            self.by_op[(kind, op)] += 1
        self.problems.append("%s: %s" % (kind, text))

    def in_scope(self, op):
        if op.get("_path") is None and (op["tid"], op["op"], op.get("fd")) in self.pathless:
            return True
        paths = [op.get("_path"), op.get("path2")]
        return any(under(p, self.roots) and p not in self.exclude for p in paths)

    def compare(self, lg, tr):
        bad = []
        for k in COMPARED:
            if k not in lg:
                continue
            want = lg[k]
            got = tr.get("_path") if k == "path" else tr.get(k)
            if k == "op" and lg.get("alt_op") == got:
                continue
            if k in U64 and isinstance(want, int) and isinstance(got, int):
                want, got = want % (1 << 64), got % (1 << 64)
            if got != want:
                bad.append("%s: log %s, trace %s" % (k, want, got))
        # an *at op the log states by its dirfd: FORMAT.md puts the dirfd in fd
        if "dirfd" in lg and "fd" not in lg and tr.get("fd") != lg["dirfd"]:
            bad.append("fd: log dirfd %s, trace %s" % (lg["dirfd"], tr.get("fd")))
        if tr.get("end_ns", 0) < tr.get("start_ns", 0):
            bad.append("end_ns %s before start_ns %s" % (tr["end_ns"], tr["start_ns"]))
        bad += self.check_times(lg, tr)
        for b in bad:
            self.by_field[(lg["op"], b.split(":")[0].split(" ")[0])] += 1
        if bad:
            self.problem("field", "tid %s seq %s %s %s: %s" % (
                lg.get("tid", "-"), lg["seq"], lg["op"], lg.get("path", ""), "; ".join(bad)))
        else:
            self.matched += 1

    def check_times(self, lg, tr):
        """The trace's clock is CLOCK_MONOTONIC from start_mono_ns; the log noted that clock
        just before and just after each call, so a syscall's entry and exit fall between."""
        if self.mono is None or "t_begin" not in lg:
            return []
        t0, t1 = lg["t_begin"] - self.mono, lg["t_end"] - self.mono
        name = lg["op"]
        if name == "uring_complete":
            # the kernel completes a request any time before it is reaped
            checks = [("end_ns", None, t1)]
        elif name == "aio_complete":
            checks = [("end_ns", t0, t1)]  # its time is io_getevents' return
        else:
            checks = [("start_ns", t0, t1)]
            if name not in SUBMITS:
                checks.append(("end_ns", t0, t1))
        bad = []
        for k, lo, hi in checks:
            v = tr.get(k)
            if v is None or (lo is not None and v < lo) or v > hi:
                bad.append("%s %s outside the call [%s, %s]" % (k, v, lo, hi))
        return bad

    def check_nonfile(self):
        """Pipe, socket and eventfd I/O may be left out of the trace; what is kept must
        name its fd's kind, and never a file's path."""
        if self.mono is None:
            return
        for l in self.nonfile:
            t0, t1 = l["t_begin"] - self.mono, l["t_end"] - self.mono
            for tr in self.trace.ops:
                if tr["tid"] != l["tid"] or tr["op"] != l["op"] or tr.get("fd") != l["fd"] \
                        or not t0 <= tr["start_ns"] <= t1:
                    continue
                bad = ["%s: log %s, trace %s" % (k, l[k], tr.get(k))
                       for k in ("fd_kind", "len", "ret") if tr.get(k) != l[k]]
                if tr.get("_path") is not None:
                    bad.append("path: none, trace %s" % tr["_path"])
                if bad:
                    self.problem("nonfile", "tid %s seq %s %s on a %s: %s" % (
                        l["tid"], l["seq"], l["op"], l["fd_kind"], "; ".join(bad)))

    def check_thread(self, tid, logged, traced):
        a = [key(l) for l in logged]
        b = [key(t) for t in traced]
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            pairs = min(i2 - i1, j2 - j1) if tag in ("equal", "replace") else 0
            for k in range(pairs):
                self.compare(logged[i1 + k], traced[j1 + k])
            for lg in logged[i1 + pairs:i2]:
                self.problem("missing", "not in the trace: " + describe(lg), key(lg))
            for tr in traced[j1 + pairs:j2]:
                self.problem("extra", "in the trace, not in the log: tid %s %s (path %s)" % (
                    tid, describe(tr), tr.get("_path")), key(tr))
        last = None
        for tr in traced:
            if last is not None and when(tr) < when(last):
                self.problem("order", "tid %s: %s starts before the op it follows (%s)" % (
                    tid, describe(tr), describe(last)))
            last = tr

    def run(self):
        scoped = [t for t in self.trace.ops if self.in_scope(t)]
        uring_done = defaultdict(list)
        by_tid = defaultdict(list)
        for t in scoped:
            if t["op"] == "uring_complete":
                uring_done[(t["pid"], t.get("aux"))].append(t)
            else:
                by_tid[t["tid"]].append(t)
        log_tid = defaultdict(list)
        for l in sorted(self.log, key=lambda l: (l["tid"], l["seq"])):
            if l["op"] == "uring_complete":
                got = uring_done.get((l["pid"], l.get("aux")))
                if got:
                    tr = got.pop(0)
                    self.compare({k: v for k, v in l.items() if k != "tid"}, tr)
                else:
                    self.problem("missing", "not in the trace: " + describe(l), l["op"])
            else:
                log_tid[l["tid"]].append(l)
        for rest in uring_done.values():
            for tr in rest:
                self.problem("extra", "in the trace, not in the log: " + describe(tr), tr["op"])
        for tid in sorted(set(log_tid) | set(by_tid)):
            self.check_thread(tid, log_tid.get(tid, []), by_tid.get(tid, []))

        self.check_nonfile()

        lost = self.meta.get("lost_events")
        if lost is None:
            self.problem("lost", "the trace meta has no lost_events")
        elif str(lost) != "0":
            self.problem("lost", "the trace lost %s events" % lost)
        return not self.problems

    def report(self, out=sys.stdout):
        for p in self.problems:
            print(p, file=out)
        if self.by_field or self.by_op:
            print("in short:", file=out)
            for (op, field), n in sorted(self.by_field.items()):
                print("  %5d  %s: wrong %s" % (n, op, field), file=out)
            for (kind, op), n in sorted(self.by_op.items()):
                print("  %5d  %s: %s" % (n, op, kind), file=out)
        logged = Counter(l["op"] for l in self.log)
        print("checked %d logged ops (%d types) against %d trace ops (%d on the workload's "
              "files): %d matched, problems: %s" % (
                  len(self.log), len(logged), len(self.trace.ops),
                  sum(1 for t in self.trace.ops if self.in_scope(t)), self.matched,
                  dict(self.kinds) if self.kinds else "none"), file=out)


def coverage(log):
    ops = {l["op"] for l in log if not l.get("info") and not l.get("nonfile")}
    missing = [o for o in RECORDED_OPS if o not in ops]
    unknown = sorted(ops - set(RECORDED_OPS))
    procs = {l["pid"] for l in log}
    threads = {l["tid"] for l in log}
    ok = True
    if missing:
        print("coverage: the log has no %s" % ", ".join(missing))
        ok = False
    if unknown:
        print("coverage: the log has ops ioreel does not record: %s" % ", ".join(unknown))
        ok = False
    if len(procs) < 2 or len(threads) < 4:
        print("coverage: %d processes, %d threads: want 2 and more than 3" % (
            len(procs), len(threads)))
        ok = False
    for l in log:
        if not l.get("info") and (l.get("path") or "/").startswith("/") is False:
            print("coverage: relative path in the log: %s" % describe(l))
            ok = False
    print("coverage: %d ops, %d types, %d processes, %d threads, %d failed ops" % (
        sum(1 for l in log if not l.get("info")), len(ops), len(procs), len(threads),
        sum(1 for l in log if l.get("ret", 0) < 0)))
    return ok


def cmd_check(a):
    log = read_jsonl(a.log, "log")
    ops = [o for o in read_jsonl(a.dump, "dump") if "op" in o]
    with open(a.info, encoding="utf-8") as f:
        info = json.load(f)
    meta = info.get("meta", {})
    c = Checker(log, ops, meta, a.roots.split(","), exclude=[os.path.realpath(a.log)])
    ok = c.run()
    c.report()
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def cmd_coverage(a):
    return 0 if coverage(read_jsonl(a.log, "log")) else 1


def record_command(a, trace, wl_cmd):
    """Records wl_cmd; returns (exit code of ioreel record, its output, problems)."""
    if not a.attach:
        cmd = [a.ioreel, "record", "-o", trace, "--"] + wl_cmd
        print("+ " + " ".join(cmd))
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return r.returncode, r.stdout, []
    # attach to a running workload that already has shared.dat open and its cwd set
    print("+ " + " ".join(wl_cmd + ["--wait-attach"]))
    wl = subprocess.Popen(wl_cmd + ["--wait-attach"], stdout=subprocess.PIPE, text=True)
    problems = []
    try:
        ready = wl.stdout.readline()
        if not ready.startswith("ready "):
            return 1, "the workload did not get ready: %r" % ready, []
        cmd = [a.ioreel, "record", "-o", trace, "-p", str(wl.pid)]
        print("+ " + " ".join(cmd))
        rec = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # the workload goes on once record says it is attached ("recording to", printed
        # when its probes are in and the fds read from /proc): a fixed wait ran out on a
        # loaded machine, where loading the probes alone took 2 s, and the workload had
        # exited before record looked for it
        head, deadline = "", time.monotonic() + a.attach_wait
        while "recording to" not in head and time.monotonic() < deadline:
            if not select.select([rec.stdout], [], [], deadline - time.monotonic())[0]:
                break
            line = rec.stdout.readline()
            if not line:
                break
            head += line
        if rec.poll() is not None or "recording to" not in head:
            if rec.poll() is None:
                rec.send_signal(signal.SIGINT)
            return rec.wait(), head + rec.stdout.read(), ["record -p: not attached after "
                                                           "%.0f s" % a.attach_wait]
        os.kill(wl.pid, signal.SIGUSR1)
        if wl.wait() != 0:
            problems.append("workload: exited %d under record -p" % wl.returncode)
        try:
            out, _ = rec.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            problems.append("record -p: still running 15 s after every process it followed "
                            "had exited")
            rec.send_signal(signal.SIGINT)
            out, _ = rec.communicate(timeout=60)
        return rec.returncode, head + out, problems
    finally:
        if wl.poll() is None:
            wl.kill()
            wl.wait()


def cmd_run(a):
    tmp = tempfile.mkdtemp(prefix="ioreel-chk.", dir="/var/tmp")
    shm = tempfile.mkdtemp(prefix="ioreel-chk.", dir="/dev/shm")
    try:
        scratch = os.path.join(tmp, "scratch")
        os.mkdir(scratch)
        log = os.path.join(tmp, "workload.log")
        trace = os.path.join(tmp, "t.reel")
        wl_cmd = [a.workload, "--dir", scratch, "--log", log, "--shm-dir", shm, "--threads",
                  str(a.threads), "--rounds", str(a.rounds)]
        rc, out, extra = record_command(a, trace, wl_cmd)
        print(out, end="")
        if rc != 0:
            if "not built yet" in out:
                print("SKIP: this ioreel cannot record yet")
                return 77
            print("FAIL: ioreel record exited %d" % rc)
            return 1
        dump = os.path.join(tmp, "t.jsonl")
        info = os.path.join(tmp, "t.info.json")
        for args, path in (([a.ioreel, "dump", trace, "--format", "jsonl"], dump),
                           ([a.ioreel, "info", trace, "--json"], info)):
            with open(path, "w") as f:
                r = subprocess.run(args, stdout=f, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                if "not built yet" in r.stderr:
                    print("SKIP: this ioreel cannot %s yet" % args[1])
                    return 77
                print("FAIL: %s exited %d: %s" % (" ".join(args), r.returncode, r.stderr))
                return 1
        logl = read_jsonl(log, "log")
        if not coverage(logl):
            print("FAIL: the workload did not cover every op")
            return 1
        ops = [o for o in read_jsonl(dump, "dump") if "op" in o]
        with open(info, encoding="utf-8") as f:
            meta = json.load(f).get("meta", {})
        c = Checker(logl, ops, meta, [scratch, shm], exclude=[os.path.realpath(log)])
        for p in extra:
            c.problem("capture", p)
        ok = c.run() and not extra
        c.report()
        if a.keep or not ok:
            keep = tempfile.mkdtemp(prefix="ioreel-check-record%s." % (
                "-attach" if a.attach else ""), dir="/var/tmp")
            for name in os.listdir(tmp):
                if name != "scratch":
                    shutil.copy(os.path.join(tmp, name), keep)
            print("log, trace, dump and info kept in " + keep)
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(shm, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--log", required=True)
    c.add_argument("--dump", required=True, help="ioreel dump TRACE --format jsonl")
    c.add_argument("--info", required=True, help="ioreel info TRACE --json")
    c.add_argument("--roots", required=True, help="the workload's dirs, comma-separated")
    r = sub.add_parser("run")
    r.add_argument("--ioreel", required=True)
    r.add_argument("--workload", required=True)
    r.add_argument("--threads", type=int, default=3)
    r.add_argument("--rounds", type=int, default=2)
    r.add_argument("--keep", action="store_true", help="keep log and trace even on success")
    r.add_argument("--attach", action="store_true",
                   help="attach with record -p to the running workload instead of -- CMD")
    r.add_argument("--attach-wait", type=float, default=60.0,
                   help="seconds record -p may take to attach before the check gives up")
    v = sub.add_parser("coverage")
    v.add_argument("--log", required=True)
    a = p.parse_args()
    return {"check": cmd_check, "run": cmd_run, "coverage": cmd_coverage}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
