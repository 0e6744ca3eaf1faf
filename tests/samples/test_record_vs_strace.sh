#!/bin/bash
# The capture sees what strace sees: samples/sqlite/record.sh re-run live into a scratch dir,
# then the same (deterministic, single-threaded) SQL under strace, imported with
# "ioreel import strace". Both traces must have the same ops per type with the same errors,
# and on the database files and the script read through stdin the same sequence of
# (op, file, offset, length, result; mmap: success): offsets of read/write come from f_pos in
# the capture.
# fstat is compared together with newfstatat: glibc 2.36 issues fstat() as newfstatat with
# AT_EMPTY_PATH, which the capture names fstat and the strace import leaves as newfstatat.
source "$(dirname "$0")/lib.sh" sqlite

[ "$(id -u)" = 0 ] || skip "recording needs root"
command -v strace > /dev/null || skip "strace not installed"
command -v sqlite3 > /dev/null || skip "sqlite3 not installed"

T=$(mktemp -d /var/tmp/ioreel-samples-strace.XXXXXX)
trap 'rm -rf "$T"' EXIT
S=$T/scratch

OUT=$T/rec.reel SCRATCH=$S IOREEL=$IOREEL bash "$SAMPLES/sqlite/record.sh" > "$T/record.out" 2>&1 ||
	{ cat "$T/record.out"; fail "record.sh failed"; }
rm -f "$S"/bank.db*
(cd "$S" && strace -f -ttt -T -y -o "$T/s.strace" sqlite3 "$S/bank.db" < workload.sql > sqlite.out) ||
	fail "sqlite3 under strace failed"
"$IOREEL" import strace "$T/s.strace" -o "$T/strace.reel" > /dev/null 2>&1 || fail "import strace"
for t in rec strace; do
	"$IOREEL" info --json "$T/$t.reel" > "$T/$t.json" || fail "info $t"
	"$IOREEL" dump --format jsonl "$T/$t.reel" > "$T/$t.jsonl" || fail "dump $t"
done
python3 - "$T" "$S" <<'PY' || fail "capture and strace disagree"
import json, sys, re
t, s = sys.argv[1:3]
def counts(name):
    c = {}
    for op, v in json.load(open(f"{t}/{name}.json"))["ops_by_type"].items():
        op = "newfstatat" if op == "fstat" else op
        n, e = c.get(op, (0, 0))
        c[op] = (n + v["count"], e + v["errors"])
    return c
a, b = counts("rec"), counts("strace")
ok = True
print(f"{'op':<12}{'ioreel':>8}{'err':>6}{'strace':>8}{'err':>6}")
for op in sorted(set(a) | set(b)):
    x, y = a.get(op, (0, 0)), b.get(op, (0, 0))
    print(f"{op:<12}{x[0]:>8}{x[1]:>6}{y[0]:>8}{y[1]:>6}" + ("" if x == y else "  <-- differ"))
    ok &= x == y
files = re.compile(re.escape(s) + r"/(bank\.db(-wal|-shm|-journal)?|workload\.sql)$")
def seq(name):
    out = []
    for line in open(f"{t}/{name}.jsonl"):
        o = json.loads(line)
        if o["path"] and files.search(o["path"]) and o["op"] not in ("fstat", "newfstatat"):
            # mmap returns an address: ASLR makes it differ from run to run
            ret = o["ret"] if o["op"] != "mmap" else o["ret"] >= 0
            out.append((o["op"], o["path"][len(s):], o["offset"], o["len"], ret))
    return out
x, y = seq("rec"), seq("strace")
same = sum(1 for i, j in zip(x, y) if i == j)
print(f"ops on the database files and the script: {len(x)} captured, {len(y)} in strace, "
      f"{same} identical in order (op, file, offset, length, result)")
for i, (p, q) in enumerate(zip(x, y)):
    if p != q:
        print(f"  first difference at #{i}: ioreel {p}, strace {q}")
        break
ok &= len(x) == len(y) == same and len(x) > 1000
sys.exit(0 if ok else 1)
PY
echo PASS
