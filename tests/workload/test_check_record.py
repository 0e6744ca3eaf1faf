#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_check_record.py - the checker itself: right pairs pass, each kind of wrong one fails.

    test_check_record.py [--workload BIN]

On the hand-made pair in testdata/ (a log and the dump a correct capture would give: fd ops
without paths, noise from libc and the log file, an io_uring completion on another task, a
fork child using an inherited fd), and, with --workload, on a full ioworkload log and the
trace a correct capture would make of it. Exit 0 pass, 1 fail.
"""
import copy
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_record as cr  # noqa: E402

failures = 0


def load(name):
    return cr.read_jsonl(os.path.join(HERE, "testdata", name), name)


def verdict(log, ops, meta, roots):
    c = cr.Checker(copy.deepcopy(log), copy.deepcopy(ops), meta, roots, exclude=["/x/log"])
    ok = c.run()
    out = io.StringIO()
    c.report(out)
    return ok, c.kinds, out.getvalue()


def expect(name, got, want_ok, want_kinds=None, want_text=None):
    global failures
    ok, kinds, text = got
    good = ok == want_ok
    if want_kinds is not None and dict(kinds) != want_kinds:
        good = False
    if want_text is not None and want_text not in text:
        good = False
    print("%s %s" % ("ok  " if good else "FAIL", name))
    if not good:
        failures += 1
        print("  expected ok=%s kinds=%s text~%r; got ok=%s kinds=%s\n%s" % (
            want_ok, want_kinds, want_text, ok, dict(kinds), text))


def find(ops, **kv):
    for i, o in enumerate(ops):
        if all(o.get(k) == v for k, v in kv.items()):
            return i
    raise SystemExit("test data has no op %s" % kv)


def handmade_cases():
    log, ops = load("handmade.log"), load("handmade.jsonl")
    meta = {"lost_events": "0"}
    roots = ["/w"]
    expect("handmade pair passes", verdict(log, ops, meta, roots), True, {})

    bad = copy.deepcopy(ops)
    bad[find(bad, op="pread64")]["offset"] = 0
    expect("one wrong offset fails, once", verdict(log, bad, meta, roots), False, {"field": 1},
           "offset: log 4096, trace 0")

    bad = copy.deepcopy(ops)
    bad[find(bad, op="read", pid=200)]["ret"] = 49
    expect("wrong ret in the fork child fails", verdict(log, bad, meta, roots), False,
           {"field": 1}, "ret: log 50, trace 49")

    bad = copy.deepcopy(ops)
    bad[find(bad, op="read", tid=101)]["fd"] = 5
    expect("wrong fd fails", verdict(log, bad, meta, roots), False, {"field": 1},
           "fd: log 6, trace 5")

    bad = copy.deepcopy(ops)
    bad[find(bad, op="read", tid=101)]["tid"] = 100
    ok, kinds, text = verdict(log, bad, meta, roots)
    expect("op on the wrong thread fails", (ok, kinds, text), False, None, "missing")

    bad = copy.deepcopy(ops)
    del bad[find(bad, op="read", pid=200)]
    expect("a lost op fails", verdict(log, bad, meta, roots), False, {"missing": 1})

    bad = copy.deepcopy(ops)
    i = find(bad, op="write", fd=4)
    bad.insert(i + 1, dict(bad[i], start_ns=125, end_ns=126))
    expect("an op the workload did not do fails", verdict(log, bad, meta, roots), False,
           {"extra": 1})

    bad = copy.deepcopy(ops)
    i, j = find(bad, op="pread64"), find(bad, op="dup")
    bad[i]["start_ns"], bad[j]["start_ns"] = bad[j]["start_ns"], bad[i]["start_ns"]
    bad[i], bad[j] = bad[j], bad[i]
    ok, kinds, text = verdict(log, bad, meta, roots)
    expect("two ops of a thread swapped fails", (ok, kinds, text), False)

    bad = copy.deepcopy(ops)
    del bad[find(bad, op="open", path="/w/a")]
    ok, kinds, text = verdict(log, bad, meta, roots)
    expect("a lost open fails (and its fd's ops cannot be placed)", (ok, kinds, text), False,
           None, "not in the trace: op=open")

    # another thread maps elsewhere at the same address, its call inside this one's: the
    # address is this thread's mapping, which was returned last
    other = dict(ops[find(ops, op="mmap")], tid=102, start_ns=342, end_ns=345,
                 path="/elsewhere/x", fd=9)
    good = sorted(copy.deepcopy(ops) + [other], key=cr.when)
    expect("msync resolves to the mapping returned last", verdict(log, good, meta, roots), True,
           {})

    bad = copy.deepcopy(ops)
    bad[find(bad, op="msync")]["aux"] = 4096
    expect("msync at the wrong address fails", verdict(log, bad, meta, roots), False)

    bad = copy.deepcopy(ops)
    bad[find(bad, op="uring_complete")]["ret"] = -11
    expect("wrong io_uring completion result fails", verdict(log, bad, meta, roots), False,
           {"field": 1}, "ret: log 512, trace -11")

    bad = copy.deepcopy(ops)
    bad[find(bad, op="open", path="/w/a")]["path"] = "/w/A"
    expect("wrong path fails", verdict(log, bad, meta, roots), False)

    expect("lost events fail", verdict(log, ops, {"lost_events": "3"}, roots), False,
           {"lost": 1}, "lost 3 events")
    expect("no lost_events meta fails", verdict(log, ops, {}, roots), False, {"lost": 1})

    # the command line: exit codes
    d = os.path.join(HERE, "testdata")
    r = subprocess.run([sys.executable, os.path.join(HERE, "check_record.py"), "check", "--log",
                        os.path.join(d, "handmade.log"), "--dump",
                        os.path.join(d, "handmade.jsonl"), "--info",
                        os.path.join(d, "handmade.info.json"), "--roots", "/w"],
                       stdout=subprocess.PIPE, text=True)
    expect("check command passes the pair", (r.returncode == 0, {}, r.stdout), True, {}, "PASS")


def synthesize(log, logpath):
    """The trace a correct capture would make of a log: fd ops name no path."""
    ops, submits, start = [], {}, None
    pids = []
    for l in log:
        if l.get("info") or "t_begin" not in l:
            continue
        start = l["t_begin"] if start is None else min(start, l["t_begin"])
        if l["pid"] not in pids:
            pids.append(l["pid"])
    for l in sorted((l for l in log if not l.get("info") and not l.get("nonfile")),
                    key=lambda l: l["t_begin"]):
        t = {"op": l["op"], "pid": l["pid"], "tid": l["tid"],
             "start_ns": l["t_begin"] - start, "end_ns": l["t_end"] - start,
             "path": None if ("fd" in l and l["op"] not in AT_PATH_OPS) or
             l["op"] in cr.COMPLETES else l.get("path"),
             "fd": l.get("fd", l.get("dirfd", -1)), "fd_kind": l.get("fd_kind", "unknown"),
             "offset": l.get("offset", 0), "len": l.get("len", 0),
             "ret": l.get("ret", 0), "fd2": l.get("fd2", -1), "path2": l.get("path2"),
             "flags": l.get("flags", 0), "mode": l.get("mode", 0), "subop": l.get("subop", 0),
             "aux": l.get("aux", 0), "ctx": l.get("ctx", 0)}
        if l["op"] == "newfstatat" and l.get("alt_op") == "fstat":
            t["op"] = "fstat"
        if l["op"] in cr.SUBMITS:
            submits[(l["pid"], l["aux"])] = t
        if l["op"] in cr.COMPLETES:
            t["start_ns"] = submits[(l["pid"], l["aux"])]["start_ns"]
            if l["op"] == "uring_complete":
                t["tid"] = 1  # completed by some other task
        ops.append(t)
    # what the loader and the log writer add: never the workload's
    ops.insert(0, {"op": "openat", "pid": pids[0], "tid": pids[0], "start_ns": 0, "end_ns": 1,
                   "path": "/usr/lib/x86_64-linux-gnu/libc.so.6", "fd": -100, "ret": 3})
    ops.insert(1, {"op": "close", "pid": pids[0], "tid": pids[0], "start_ns": 2, "end_ns": 3,
                   "path": None, "fd": 3, "ret": 0})
    ops.insert(2, {"op": "openat", "pid": pids[0], "tid": pids[0], "start_ns": 4, "end_ns": 5,
                   "path": logpath, "fd": -100, "ret": 3})
    ops.append({"op": "write", "pid": pids[0], "tid": pids[0], "start_ns": ops[-1]["end_ns"] + 1,
                "end_ns": ops[-1]["end_ns"] + 2, "path": None, "fd": 3, "ret": 100})
    ops.sort(key=lambda o: o["start_ns"])
    # a writer keeps issue order per tid; completions come when reaped
    ops.sort(key=lambda o: o["end_ns"] if o["op"] in cr.COMPLETES else o["start_ns"])
    return ops, start


# Path ops whose log line names an fd too (a dirfd, AT_FDCWD, -1, or the fd itself for
# futimens and AT_EMPTY_PATH): a correct trace carries their path, as the capture does.
AT_PATH_OPS = {"chmod", "fchmodat", "chown", "lchown", "fchownat", "utimensat", "link",
               "linkat", "symlink", "symlinkat", "readlink", "readlinkat"}


def workload_cases(workload):
    tmp = tempfile.mkdtemp(prefix="ioreel-chk-test.", dir="/var/tmp")
    try:
        scratch = os.path.join(tmp, "s")
        os.mkdir(scratch)
        logpath = os.path.join(tmp, "log")
        subprocess.run([workload, "--dir", scratch, "--log", logpath, "--threads", "2"],
                       check=True)
        log = cr.read_jsonl(logpath, "log")
        ops, mono = synthesize(log, logpath)
        meta = {"lost_events": "0", "start_mono_ns": str(mono)}
        roots = [scratch]

        def v(o):
            c = cr.Checker(copy.deepcopy(log), copy.deepcopy(o), meta, roots, [logpath])
            ok = c.run()
            out = io.StringIO()
            c.report(out)
            return ok, c.kinds, out.getvalue()

        expect("full workload log vs a correct trace passes", v(ops), True, {})
        bad = copy.deepcopy(ops)
        bad[find(bad, op="preadv2")]["offset"] += 1
        expect("full workload: one wrong offset fails, once", v(bad), False, {"field": 1},
               "offset")
        pipe_w = next(l for l in log if l.get("nonfile") and l["fd_kind"] == "fifo")
        kept = dict(op="write", pid=pipe_w["pid"], tid=pipe_w["tid"],
                    start_ns=pipe_w["t_begin"] - mono, end_ns=pipe_w["t_end"] - mono,
                    path=None, fd=pipe_w["fd"], fd_kind="fifo", len=8, ret=8)
        good = sorted(copy.deepcopy(ops) + [kept], key=cr.when)
        expect("full workload: a pipe write kept with its kind passes", v(good), True, {})
        kept["fd_kind"] = "reg"
        bad = sorted(copy.deepcopy(ops) + [kept], key=cr.when)
        expect("full workload: a pipe write kept as a file's fails", v(bad), False,
               {"nonfile": 1}, "fd_kind: log fifo, trace reg")
        bad = copy.deepcopy(ops)
        bad[find(bad, op="getdents64")]["fd_kind"] = "reg"
        expect("full workload: a directory fd recorded as a file fails", v(bad), False,
               {"field": 1}, "fd_kind: log dir, trace reg")
        bad = copy.deepcopy(ops)
        i = find(bad, op="fsync")
        bad[i]["end_ns"] += 50000000
        expect("full workload: a time outside the call fails", v(bad), False, None,
               "outside the call")
        bad = [o for o in ops if o["op"] != "aio_complete"]
        ok, kinds, text = v(bad)
        expect("full workload: lost aio completions fail", (ok, kinds, text), False, None,
               "not in the trace: op=aio_complete")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    handmade_cases()
    if len(sys.argv) == 3 and sys.argv[1] == "--workload":
        workload_cases(sys.argv[2])
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
