#!/bin/bash
# ioreel import strace stamps a process's exit where the process began to exit: the start
# of its exit_group (or its last thread's exit) call, not strace's later "+++ exited" line.
# Three flock(1)s on one lock file: the holder's exit releases the lock, and strace printed
# the waiter's "<... flock resumed> = 0" between the holder's exit_group and its "+++" line.
# Stamped and written at the "+++" line, the exit came after the take it allowed, in time
# and in the trace's order: the replay's take waited for it until given up (EINTR), a stall
# and an outcome differing (in afap, now and then, even with the time right). Replayed
# --timing original and afap, every outcome is the original's and no lock wait is given up.
# Then the live case, when strace and flock(1) are here.
# usage: test_import_exit_time.sh IOREEL
set -u
IOREEL=$1
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$dir/fl.strace" <<'LOG'
100 1700000000.000000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 101 <0.000100>
100 1700000000.000200 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 102 <0.000100>
100 1700000000.000400 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 103 <0.000100>
101 1700000000.001000 openat(AT_FDCWD</w>, "/w/lock", O_RDONLY|O_CREAT|O_NOCTTY, 0666) = 3</w/lock> <0.000050>
101 1700000000.001100 flock(3</w/lock>, LOCK_EX) = 0 <0.000020>
102 1700000000.002000 openat(AT_FDCWD</w>, "/w/lock", O_RDONLY|O_CREAT|O_NOCTTY, 0666) = 3</w/lock> <0.000050>
102 1700000000.002100 flock(3</w/lock>, LOCK_EX <unfinished ...>
103 1700000000.003000 openat(AT_FDCWD</w>, "/w/lock", O_RDONLY|O_CREAT|O_NOCTTY, 0666) = 3</w/lock> <0.000050>
103 1700000000.003100 flock(3</w/lock>, LOCK_EX <unfinished ...>
101 1700000000.004000 openat(AT_FDCWD</w>, "/w/log", O_WRONLY|O_CREAT|O_APPEND, 0666) = 4</w/log> <0.000040>
101 1700000000.004100 write(4</w/log>, "1\n", 2) = 2 <0.000020>
101 1700000000.004200 close(4</w/log>) = 0 <0.000010>
101 1700000000.051000 exit_group(0)   = ?
102 1700000000.051200 <... flock resumed>) = 0 <0.049100>
101 1700000000.051300 +++ exited with 0 +++
102 1700000000.052000 openat(AT_FDCWD</w>, "/w/log", O_WRONLY|O_CREAT|O_APPEND, 0666) = 4</w/log> <0.000040>
102 1700000000.052100 write(4</w/log>, "2\n", 2) = 2 <0.000020>
102 1700000000.052200 close(4</w/log>) = 0 <0.000010>
102 1700000000.101000 exit_group(0)   = ?
103 1700000000.101200 <... flock resumed>) = 0 <0.098100>
102 1700000000.101300 +++ exited with 0 +++
103 1700000000.102000 openat(AT_FDCWD</w>, "/w/log", O_WRONLY|O_CREAT|O_APPEND, 0666) = 4</w/log> <0.000040>
103 1700000000.102100 write(4</w/log>, "3\n", 2) = 2 <0.000020>
103 1700000000.102200 close(4</w/log>) = 0 <0.000010>
103 1700000000.151000 exit_group(0)   = ?
103 1700000000.151300 +++ exited with 0 +++
100 1700000000.152000 exit_group(0)   = ?
100 1700000000.152300 +++ exited with 0 +++
LOG
"$IOREEL" import strace "$dir/fl.strace" -o "$dir/fl.reel" 2> "$dir/imp.err" ||
	fail "import: $(cat "$dir/imp.err")"
"$IOREEL" dump --format jsonl "$dir/fl.reel" > "$dir/fl.jsonl" || fail "dump"
python3 - "$dir/fl.jsonl" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
ex = {o["pid"]: o["start_ns"] for o in ops if o["op"] == "exit"}
want = {101: 51000000, 102: 101000000, 103: 151000000, 100: 152000000}
if ex != want:
    print("FAIL: exits at %s, want at each exit_group: %s" % (ex, want)); sys.exit(1)
# and written where they happened, as a recorder writes (exit order): before the takes
# they allowed, which a replay keeps after them (FORMAT.md, "Locks")
order = [(o["op"], o["pid"]) for o in ops if o["op"] in ("flock", "exit")]
want = [("flock", 101), ("exit", 101), ("flock", 102), ("exit", 102), ("flock", 103),
        ("exit", 103), ("exit", 100)]
if order != want:
    print("FAIL: lock ops and exits in the order %s, want %s" % (order, want)); sys.exit(1)
PY
[ $? = 0 ] || exit 1

# replay_ok TRACE MODE WHAT
replay_ok() {
	rm -rf "$dir/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$1" --target "$dir/tgt" --timing "$2" \
		-o "$dir/r.reel" > "$dir/out" 2>&1 || fail "$3: replay --timing $2: status $?: $(cat "$dir/out")"
	grep -q "outcomes differing from the original: 0" "$dir/out" ||
		fail "$3, --timing $2: outcomes differ: $(grep -A6 'outcomes differing' "$dir/out")
the replay's lock ops and exits: $("$IOREEL" dump "$dir/r.reel" | grep -E 'flock|exit')"
	! grep -Eq 'given up|EINTR' "$dir/out" || fail "$3, --timing $2: a lock wait given up: $(cat "$dir/out")"
}
for m in original afap; do
	replay_ok "$dir/fl.reel" $m "hand-written log"
done

command -v strace > /dev/null && command -v flock > /dev/null ||
	{ echo "SKIP (the live case): strace or flock missing"; echo PASS; exit 0; }
strace -f -o /dev/null true 2> /dev/null || { echo "SKIP (the live case): strace cannot trace here"; echo PASS; exit 0; }
W=$dir/live
mkdir "$W"
strace -f -ttt -T -y -o "$dir/wl.strace" bash -c \
	"( for i in 1 2 3; do flock $W/lock -c \"echo \$i >> $W/log; sleep 0.05\" & done; wait )" ||
	fail "strace of flock(1)"
"$IOREEL" import strace "$dir/wl.strace" -o "$dir/wl.reel" 2> "$dir/wl.err" || fail "import: $(cat "$dir/wl.err")"
for m in original afap; do
	replay_ok "$dir/wl.reel" $m "live flock(1) log"
done
echo PASS
