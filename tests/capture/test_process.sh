#!/bin/bash
# Processes (format 1.4): proc_tree forks a child that exits with code 3, one killed by
# SIGKILL, a clone(CLONE_FILES) child that exits by exit(2) with 4, a posix_spawn (vfork +
# execve) that exits with 6, and a two-thread child whose main thread ends first and whose
# other thread exits with 5. The recording has one fork op per child (parent's pid, the
# child's pid in ret, 0x400 only for CLONE_FILES), none for the thread, an execve op for the
# spawned child and for the command itself (its first op, as strace -f shows), one exit op per
# process with the wait status the parent got (768, 9, 1024, 1536, 1280, 0) and the thread
# that ended last; in file order each child's ops come after its fork op and every process's
# ops before its exit op, and the times agree.
source "$(dirname "$0")/lib.sh"
PROC_TREE=$3
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
mkdir "$dir/app" || exit 1
"$IOREEL" record -o "$dir/t.reel" -- "$PROC_TREE" "$dir/app" > "$dir/pids.txt" 2> "$dir/rec.txt" ||
	{ echo "FAIL: record exited $?"; cat "$dir/rec.txt"; exit 1; }
for w in "fork 5" "execve 2" "exit 6"; do
	grep -Eq "  $w( |\$)" "$dir/rec.txt" || { echo "FAIL: record's summary, no '$w':"; cat "$dir/rec.txt"; exit 1; }
done
n=$("$IOREEL" info "$dir/t.reel" | sed -n 's/^ *capture.after_exit *//p')
[ "$n" = 0 ] || { echo "FAIL: capture.after_exit '$n', want 0"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" > "$dir/ops.jsonl" || { echo "FAIL: dump"; exit 1; }
python3 - "$dir/pids.txt" "$dir/ops.jsonl" "$dir/app" <<'PY' || exit 1
import json, sys
who, tid = {}, {}
for line in open(sys.argv[1]):
    role, p, t = line.split()
    who[role], tid[role] = int(p), int(t)
ops = [json.loads(l) for l in open(sys.argv[2])]
app = sys.argv[3]
main = who["main"]
kids = {r: who[r] for r in ("exit3", "killed", "clone_files", "spawned", "threads")}
bad = []
def fail(msg):
    bad.append(msg)

for i, o in enumerate(ops):
    if o["op"] in ("fork", "execve", "exit"):
        if o["fd"] != -1 or o["fd2"] != -1 or o["path"] is not None or o["start_ns"] != o["end_ns"]:
            fail(f"op {i}: {o}: want fd -1, no path, start = end")

forks = [(i, o) for i, o in enumerate(ops) if o["op"] == "fork"]
got = sorted((o["pid"], o["tid"], o["ret"], o["flags"]) for _, o in forks)
want = sorted((main, main, p, 0x400 if r == "clone_files" else 0) for r, p in kids.items())
if got != want:
    fail(f"fork ops (pid, tid, ret, flags) {got}, want {want}")
execs = [(o["pid"], o["tid"], o["ret"]) for o in ops if o["op"] == "execve"]
if execs != [(main, main, 0), (kids["spawned"], kids["spawned"], 0)]:
    fail(f"execve ops {execs}, want the command's ({main}) and the spawned child's ({kids['spawned']})")
mains = [o for o in ops if o["pid"] == main]
if mains[0]["op"] != "execve":
    fail(f"the command's first op is {mains[0]}, not its execve")
exits = {}
for i, o in enumerate(ops):
    if o["op"] == "exit":
        if o["pid"] in exits:
            fail(f"a second exit op of {o['pid']}: {o}")
        exits[o["pid"]] = (i, o)
want_exit = {main: (0, tid["main"]), kids["exit3"]: (768, kids["exit3"]),
             kids["killed"]: (9, kids["killed"]), kids["clone_files"]: (1024, kids["clone_files"]),
             kids["spawned"]: (1536, kids["spawned"]), kids["threads"]: (1280, tid["thread"])}
got_exit = {p: (o["ret"], o["tid"]) for p, (i, o) in exits.items()}
if got_exit != want_exit:
    fail(f"exit ops pid: (ret, tid) {got_exit}, want {want_exit}")
if tid["thread"] == kids["threads"]:
    fail("the last thread is the child's main thread: the workload did not do its part")

fork_at = {o["ret"]: i for i, o in forks}
gap_fork, gap_exit = [], []
for p in [main] + list(kids.values()):
    mine = [(i, o) for i, o in enumerate(ops) if o["pid"] == p and o["op"] not in ("fork", "exit")
            or o["pid"] == p and o["op"] == "fork"]
    if not mine:
        fail(f"no ops of {p}")
        continue
    if p in fork_at:
        f = ops[fork_at[p]]
        if mine[0][0] < fork_at[p]:
            fail(f"op {mine[0][0]} of {p} before its fork op ({fork_at[p]})")
        gap_fork.append(min(o["start_ns"] for _, o in mine) - f["start_ns"])
    if p in exits:
        ei, e = exits[p]
        if mine[-1][0] > ei:
            fail(f"op {mine[-1][0]} of {p} after its exit op ({ei}): {mine[-1][1]}")
        gap_exit.append(e["start_ns"] - max(o["end_ns"] for _, o in mine))
    # each process's file, written by itself
    name = {main: "main"}.get(p) or {v: k for k, v in kids.items()}[p]
    name = "thread" if name == "threads" else name
    if not any(o["op"] in ("open", "openat") and o["path"] == f"{app}/{name}" and o["ret"] >= 0
               for _, o in mine):
        fail(f"no open of {app}/{name} by {p}")
for g in gap_fork + gap_exit:
    if g < 0:
        fail(f"times: fork after a child's first op or exit before a last op ends: {gap_fork} {gap_exit}")
        break
thread_ops = [o for o in ops if o["pid"] == kids["threads"] and o["tid"] == tid["thread"]]
if not thread_ops:
    fail("no ops of the last thread")
if bad:
    print("FAIL:"); [print(" ", b) for b in bad]; sys.exit(1)
print(f"fork op to the child's first op: {min(gap_fork)}..{max(gap_fork)} ns; "
      f"last op's end to the exit op: {min(gap_exit)}..{max(gap_exit)} ns")
PY
echo PASS
