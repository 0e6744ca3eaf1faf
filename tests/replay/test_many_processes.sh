#!/bin/bash
# Thousands of short processes (a build, a mail server, a database's backend per connection)
# cost the dispatcher no more than those alive at once: what it keeps by fd (the order of
# the ops on it, the name it was opened by, a pipe's "not replayed") goes when the process
# ends, and so does a thread's count of ops to come. They used to stay for the whole replay:
# 200 k processes of 8 ops took 175 MiB before the comparison. IOREEL_TEST_KEYS makes the
# replay say what is kept at the end, which must not grow with the processes. And a result
# names an open's and a dup's fd by the trace's number, as the ops on it do: the comparison
# then follows an fd from its open to its close (it kept every replayed open, the replay's
# own fd numbers never closed).
source "$(dirname "$0")/lib.sh"

# procs N: N processes, each of one thread: opens three files (of 30), a /proc file (not
# replayed) and a dup, reads through each (one fstat without the fd's path), closes two
# and leaves the rest open at its end
procs() {
	python3 - "$1" <<'EOF'
import sys
t = 0
def op(pid, s):
    global t
    print("%d %d %d %d %s" % (pid, pid, t, t + 1, s))
    t += 2
for p in range(int(sys.argv[1])):
    pid, d = 1000 + p, "/srv/d%d" % (p % 10)
    for k in range(3):
        op(pid, "openat fd=-100 path=%s/f%d flags=O_RDONLY ret=%d" % (d, k, 3 + k))
    op(pid, "openat fd=-100 path=/proc/%d/stat flags=O_RDONLY ret=6" % pid)
    op(pid, "dup fd=5 ret=7")
    for k in range(3):
        op(pid, "pread64 fd=%d path=%s/f%d off=0 len=4096 ret=4096" % (3 + k, d, k))
    op(pid, "fstat fd=7 ret=0")
    op(pid, "read fd=6 path=/proc/%d/stat len=512 ret=100" % pid)
    op(pid, "close fd=3 ret=0")
    op(pid, "close fd=4 ret=0")
EOF
}

declare -A KEYS
for n in 300 1500; do
	procs $n | mk t
	rm -rf "$T/tgt"
	IOREEL_TEST_KEYS=1 timeout -s KILL 120 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" \
		--timing afap -o "$T/r.reel" >"$T/out" 2>&1 || fail "$n processes: status $?: $(tail -5 "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		grep -A8 "outcomes differing" "$T/out"
		fail "$n processes: outcomes differ"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" --prefix /srv >/dev/null # /proc: not replayed
	k=$(sed -n 's/^ioreel: replay: test: at the end \(.*\)/\1/p' "$T/out")
	[ -n "$k" ] || fail "$n processes: no keys notice: $(grep test: "$T/out")"
	echo "$n processes: at the end $k"
	KEYS[$n]=$k
	case "$k" in
	*" 0 fd names, 0 non-file fds, 0 threads") ;;
	*) fail "$n processes: fd names, non-file fds or threads kept after their processes: $k" ;;
	esac
	# the result's opens and dups return the trace's fd numbers
	bad=$("$IOREEL" dump "$T/r.reel" --format csv |
		awk -F, '($1 == "openat" || $1 == "dup") && $0 !~ /,(3|4|5|7),/' | head -3)
	[ -z "$bad" ] || fail "$n processes: an open or dup in the result returned another fd: $bad"
done
[ "${KEYS[300]}" = "${KEYS[1500]}" ] ||
	fail "the order keys kept grow with the processes: ${KEYS[300]} (300), ${KEYS[1500]} (1500)"
echo PASS
