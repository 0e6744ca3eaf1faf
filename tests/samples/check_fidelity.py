#!/usr/bin/env python3
"""check_fidelity.py REPORT_JSON ORIG_JSONL RESULT_JSONL DBFILES_RE "DATAOPS" [SYNC_LO SYNC_HI]:
the checks of
test_fidelity.sh. Exits 0 faithful, 1 not, 2 when only latency bounds (p50, p90, KS) were
missed and the replay fell behind its schedule (median lateness over 1 ms, or the report says
so: the shared machine was busy, and its latencies carry the waits for a CPU; the caller tries
again, and after the last try says the latencies were not judged). An op missing or extra, or
an outcome that differs, is never excused so.

The bounds, and why they are loose but real. Original and replay run the same syscalls on
the same file system and device, with the files in the page cache in both (the original
wrote them just before reading them; the replay too). What still differs: the original was
measured in the kernel (tracepoint entry to exit) with eBPF programs adding their cost, the
replay in user space around the syscall; the VM's disk and the other processes on the two
cores add jitter, mostly to syncs. So:
  - every op the replay is documented to replay is replayed, in each thread's order (not
    replayed: I/O under /proc, /sys, /dev or on pipes, sockets and devices:
    RocksDB's threads write their new names to /proc/self/task/N/comm);
  - every replayed op has the outcome it had: same success or errno, same byte count for
    reads and writes (a replay that read holes, short files or failed opens would not);
  - for the ops that carry the workload (DATAOPS): p50 within a factor 5 either way. A
    broken replay lands far outside: an fsync with nothing dirty (writes skipped or
    misdirected) takes ~10 us instead of ~200 us, on tmpfs ~1 us; O_DIRECT or cold-cache
    reads take 50-100x a cached read (short or missing files: the outcome check);
  - the upper p50 and p90 bounds allow, on top, what a syscall's entry and exit cost the
    replay (its meta replay.syscall_ns: a getppid timed as it times ops; ~1 us on a VM with
    pti). The recording's times start and end at the tracepoints inside the syscall, the
    replay's outside it: PostgreSQL's 0.3 us lseek replays as 1.4 us (CI: ratio 5.2) with
    nothing wrong. A sync with nothing dirty is still far below the lower bound;
  - p90 within a factor 10 either way. Not p99: with a few hundred syncs or reads the p99
    is the 5th slowest op, and on a shared VM one writeback stall or one cold page in
    either run moves it 20x (the sqlite sample's pread64 p99 is 104 us for 1.7 us p50);
  - for syncs (fsync, fdatasync) the p50 and p90 bounds widen by SYNC_LO (<= 1) below and
    SYNC_HI (>= 1) above: the extreme ratios of the disk's sync time around the replay to
    that around the recording (sync_probe.py). A disk shared with other processes' I/O
    syncs 30x slower some seconds (0.12 ms, then 4 ms, on this VM): that is the disk, not
    the replay. The KS bound stays, unless the disk's sync time moved more than
    SYNC_KS_DISK_MAX either way: the samples' syncs are tight (PostgreSQL's fdatasync p90 is
    1.3x its p50), so a disk 2x slower alone puts D past 0.8 however faithful the replay
    (CI: the disk 1.8-3.8x slower than at the recording, D 0.968 for a replay whose 292040
    outcomes all matched; a busy machine: 40x, D 0.944). Then the widened p50 and p90 bounds
    are what is left to catch a broken replay, and do: a sync with nothing dirty, or on
    tmpfs, lands far below them;
  - KS distance D at most 0.8 (the bulk of the two distributions overlaps; disjoint is 1)
    for the DATAOPS whose original p50 is 10 us or more. Below that the D says more about
    the measurement than the storage: the original's times include the capture's probe
    work (a few hundred ns per syscall), the replay's do not, so a 1.2 us write and its
    0.8 us replay are "disjoint" (D 0.9) while the same to any reader of the report.
"""
import json
import re
import sys
from collections import Counter, defaultdict

NOT_REPLAYED = set()  # every op type of a file is replayed (mmap and msync too)
NONFILE_KINDS = {"chr", "fifo", "sock", "other"}
KS_MIN_P50_NS = 10_000
READS = {"read", "pread64", "readv", "preadv", "preadv2"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2"}
SYNCS = {"fsync", "fdatasync"}
P50_FACTOR = 5.0
P90_FACTOR = 10.0
KS_MAX = 0.8
SYNC_KS_DISK_MAX = 1.5
LATENESS_P50_MAX_NS = 1_000_000


def us(ns):
    """a duration in ns, shortly: 2.3us, 450us, 12ms"""
    if ns < 100_000:
        return f"{ns / 1000:.1f}us"
    return f"{ns / 1000:.0f}us" if ns < 10_000_000 else f"{ns / 1e6:.0f}ms"


def is_pseudo(path):
    if not path or path == "/dev/shm" or path.startswith("/dev/shm/"):
        return False
    return any(path == p or path.startswith(p + "/") for p in ("/proc", "/sys", "/dev"))


def replayable(o):
    """what ioreel replay --help says it replays"""
    return (o["op"] not in NOT_REPLAYED and o["fd_kind"] not in NONFILE_KINDS
            and not is_pseudo(o["path"]))


def per_thread(path, keep):
    per = defaultdict(list)
    for line in open(path):
        o = json.loads(line)
        if keep(o):
            per[(o["pid"], o["tid"])].append(o)
    return per


def main():
    report_path, orig_path, res_path, dbfiles, dataops = sys.argv[1:6]
    sync_lo, sync_hi = (float(sys.argv[6]), float(sys.argv[7])) if len(sys.argv) > 7 else (1, 1)
    dataops = dataops.split()
    rep = json.load(open(report_path))
    orig, res = rep["runs"][0], rep["runs"][1]
    bad = []  # ops or outcomes unlike the original's
    slow = []  # latency bounds missed

    a = per_thread(orig_path, replayable)
    b = per_thread(res_path, lambda o: True)
    expect = Counter(o["op"] for ops in a.values() for o in ops)

    late = res["lateness"]
    syscall_ns = int(res["meta"].get("replay.syscall_ns", 0))
    print(f"the replay's times include a syscall's entry and exit, {us(syscall_ns)} here "
          "(replay.syscall_ns): the upper p50 and p90 bounds allow that much on top")
    print(f"sync bounds widened by {sync_lo:.2f} below, {sync_hi:.2f} above (disk sync time "
          "around the replay / around the recording)")
    print(f"lateness: p50 {us(late['p50_ns'])}, p99 {us(late['p99_ns'])}, "
          f"max {us(late['max_ns'])}, fell_behind {late['fell_behind']}")
    print("count: in the original (of which the replay is to replay: expect); err: failed ops")
    print(f"{'op':<16}{'count':>8}{'expect':>8}{'replay':>8}{'err':>6}{'rerr':>6}"
          f"{'p50':>10}{'replay':>10}{'x':>7}{'p90':>10}{'replay':>10}{'x':>7}{'p99':>10}{'replay':>10}{'x':>7}{'KS D':>7}")
    for op, o in sorted(orig["ops_by_type"].items(), key=lambda kv: -kv[1]["total_ns"]):
        r = res["ops_by_type"].get(op)
        if r is None or r["count"] == 0:
            print(f"{op:<16}{o['count']:>8}{expect[op]:>8}{'-':>8}  not replayed")
            if expect[op]:
                bad.append(f"{op}: {expect[op]} to replay, none replayed")
            continue
        v = r["vs_original"]
        r90 = r["p90_ns"] / o["p90_ns"] if o["p90_ns"] else float("inf")
        print(f"{op:<16}{o['count']:>8}{expect[op]:>8}{r['count']:>8}{o['errors']:>6}"
              f"{r['errors']:>6}"
              f"{us(o['p50_ns']):>10}{us(r['p50_ns']):>10}{v['ratio_p50']:>7.2f}"
              f"{us(o['p90_ns']):>10}{us(r['p90_ns']):>10}{r90:>7.2f}"
              f"{us(o['p99_ns']):>10}{us(r['p99_ns']):>10}{v['ratio_p99']:>7.2f}"
              f"{v['ks_d']:>7.3f}")
        if r["count"] != expect[op]:
            bad.append(f"{op}: {expect[op]} to replay, {r['count']} replayed")
        if op in dataops:
            lo, hi = (sync_lo, sync_hi) if op in SYNCS else (1, 1)
            lo50, hi50 = lo / P50_FACTOR, hi * P50_FACTOR
            lo90, hi90 = lo / P90_FACTOR, hi * P90_FACTOR
            # the upper bounds allow the replay's syscall entry and exit on top (SYSCALL_NS)
            hi50 += syscall_ns / o["p50_ns"] if o["p50_ns"] else 0
            hi90 += syscall_ns / o["p90_ns"] if o["p90_ns"] else 0
            if not lo50 <= v["ratio_p50"] <= hi50:
                slow.append(f"{op}: p50 ratio {v['ratio_p50']:.2f} outside {lo50:.2f}..{hi50:.2f}")
            if not lo90 <= r90 <= hi90:
                slow.append(f"{op}: p90 ratio {r90:.2f} outside {lo90:.2f}..{hi90:.2f}")
            disk_moved = op in SYNCS and max(1 / lo, hi) > SYNC_KS_DISK_MAX
            if disk_moved and v["ks_d"] > KS_MAX:
                print(f"note: {op}: KS D {v['ks_d']:.3f} not judged: the disk's sync time "
                      f"moved {max(1 / lo, hi):.1f}x around the replay")
            elif o["p50_ns"] >= KS_MIN_P50_NS and v["ks_d"] > KS_MAX:
                slow.append(f"{op}: KS D {v['ks_d']:.3f} > {KS_MAX}")
    for op in dataops:
        if op not in orig["ops_by_type"]:
            bad.append(f"{op}: expected in the sample, absent")

    # outcomes, op by op in each thread's order
    db = re.compile(dbfiles)
    differ, compared = Counter(), Counter()
    for key, ops in a.items():
        got = b.get(key, [])
        if [o["op"] for o in ops] != [o["op"] for o in got]:
            bad.append(f"thread {key}: the replay's op sequence differs from the original's")
            continue
        for o, g in zip(ops, got):
            same = (o["ret"] < 0) == (g["ret"] < 0) and (o["ret"] >= 0 or o["ret"] == g["ret"])
            if o["op"] in READS | WRITES:
                same = o["ret"] == g["ret"]
            where = "database files" if o["path"] and db.search(o["path"]) else "other files"
            compared[where] += 1
            if not same:
                differ[(where, o["op"], o["path"], o["ret"], g["ret"])] += 1
    for where in ("database files", "other files"):
        n = sum(v for k, v in differ.items() if k[0] == where)
        print(f"outcomes on the {where}: {compared[where] - n} of {compared[where]} ops as in "
              "the original")
    for (where, op, path, ro, rr), n in differ.most_common(8):
        print(f"  {n} x {op} {path}: original {ro}, replay {rr}")
    if differ:
        bad.append(f"{sum(differ.values())} ops ended differently")

    # the report's own judgment too (wake-up lateness p99): a CI run's replay with p50 415 us
    # but p99 30 ms missed the pwrite64 p90 bound (23x) and was not tried again
    behind = late["p50_ns"] > LATENESS_P50_MAX_NS or late["fell_behind"]
    if behind:
        print(f"note: the replay fell behind its schedule (lateness p50 > "
              f"{us(LATENESS_P50_MAX_NS)}, or the report says it fell behind): the machine "
              "was busy")
    for b_ in bad + slow:
        print("FAIL  " + b_)
    if not bad and not slow:
        print("within bounds")
    return 0 if not bad and not slow else 2 if behind and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
