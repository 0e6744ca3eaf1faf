#!/bin/bash
# A lookup that enters while another thread's create (or unlink) of its name is under way
# sees the name as it was before, when its look came first: a stat spinning until another
# thread's file exists fails ENOENT after the create entered. Trace order is by entry, so
# such a lookup comes after the create in the trace; replayed after it, it found the file
# (a differing outcome), and a stat that found a file being unlinked failed ENOENT. The
# replay must run each before the op whose effect it did not see, as the original did:
# - thread 101's stat at 120 µs enters during thread 100's create (100-200 µs), fails ENOENT;
# - its stat at 420 µs enters during the unlink (400-500 µs) and finds the file;
# - process 200's access at 130 µs, a lookup of another process, fails ENOENT too;
# - the stat at 150 µs of thread 102, which also ran a read (not of the name) after the
#   create entered, is left after the create: moving the read too could reorder it against
#   the others', so its outcome differs, named in the summary (not hidden);
# and the ops that came after each (found the file; ENOENT) keep their order.
source "$(dirname "$0")/lib.sh"

spec() {
	echo "100 101 50 60 stat path=/d/new ret=-ENOENT"
	echo "100 100 100 200 openat path=/d/new flags=O_WRONLY|O_CREAT mode=0644 ret=3"
	echo "100 101 120 130 stat path=/d/new ret=-ENOENT"
	echo "200 200 130 135 access path=/d/new ret=-ENOENT"
	echo "100 101 140 145 stat path=/d/new ret=-ENOENT"
	echo "100 100 210 220 close fd=3 ret=0"
	echo "100 101 250 260 stat path=/d/new ret=0"
	echo "200 200 270 275 access path=/d/new ret=0"
	echo "100 100 300 310 stat path=/d/old ret=0"
	echo "100 100 400 500 unlink path=/d/old ret=0"
	echo "100 101 420 430 stat path=/d/old ret=0"
	echo "100 101 440 450 newfstatat fd=-100 path=/d/old ret=0"
	echo "100 101 600 610 stat path=/d/old ret=-ENOENT"
}
spec | mk t
for timing in original think afap; do
	replay_as_traced "$timing" "a lookup that overlapped a create or an unlink of its name"
done

# the case left alone: thread 102 read its own file after the create entered, then looked
{
	spec
	echo "100 102 20 30 openat path=/d/other flags=O_RDONLY ret=4"
	echo "100 102 110 115 pread64 fd=4 off=0 len=100 ret=100"
	echo "100 102 150 160 stat path=/d/new ret=-ENOENT"
} | sort -n -k3 | mk t
rm -rf "$T/tgt"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay with thread 102: $(cat "$T/out")"
grep -q "outcomes differing from the original: 1$" "$T/out" || {
	cat "$T/out"
	fail "thread 102's stat: want exactly one differing outcome, named"
}
check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
echo PASS
