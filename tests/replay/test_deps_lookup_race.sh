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

# what must not move, or must move for the file set too:
# - an open of /d/B that ended before a rename onto /d/B (which was there already: finding
#   it says nothing of which side it ran on) stays before it, and reads the old file;
# - an O_TRUNC open is no mere lookup: it is not moved past process 300's write;
# - a stat that found /d/n before an O_EXCL create of it ended saw the create (the name
#   was not there before it): the file set must not prepare /d/n, or the create fails
{
	echo "100 100 0 5 openat path=/d/A flags=O_WRONLY|O_CREAT mode=0644 ret=3"
	echo "100 100 6 7 pwrite64 fd=3 off=0 len=100 ret=100"
	echo "100 100 8 9 close fd=3 ret=0"
	echo "200 200 150 200 openat path=/d/B flags=O_RDONLY ret=3"
	echo "100 100 100 300 rename path=/d/A path2=/d/B ret=0"
	echo "200 200 310 320 pread64 fd=3 off=0 len=4096 ret=4096"
	echo "200 200 330 340 close fd=3 ret=0"
	echo "300 300 400 405 openat path=/d/b flags=O_RDWR|O_CREAT mode=0644 ret=3"
	echo "200 200 550 600 stat path=/d/new2 ret=0"
	echo "200 200 610 620 openat path=/d/b flags=O_WRONLY|O_TRUNC ret=4"
	echo "300 300 630 640 pwrite64 fd=3 off=0 len=4096 ret=4096"
	echo "100 100 500 700 openat path=/d/new2 flags=O_WRONLY|O_CREAT mode=0644 ret=5"
	echo "300 300 800 810 pread64 fd=3 off=0 len=4096 ret=4096"
	echo "200 200 950 1000 stat path=/d/n ret=0"
	echo "100 100 900 1100 openat path=/d/n flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=6"
} | mk t
for timing in original afap; do
	replay_as_traced "$timing" "a rename onto an existing name, an O_TRUNC open, an O_EXCL create"
done
echo PASS
