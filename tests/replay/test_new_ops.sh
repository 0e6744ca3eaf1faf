#!/bin/bash
# The op types of format 1.1 replay, on tmpfs (/dev/shm) and ext4 (/var/tmp): the result has
# exactly the trace's ops with their original return values, and the target ends as they
# leave it: copied bytes equal to the source range, sizes, mode bits, owners, link counts,
# symlink contents, times set by utimensat. A sendfile to a socket goes into /dev/null and
# still reads the source (its count stops at the file's end, as the original's did). Thread
# B opens through the symlink thread A makes, stats A's hard link and copies into a file A
# opened: as fast as possible, only the cross-thread order keeps B after A.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || {
	echo "SKIP: chown to other users needs root"
	exit 77
}

mk t <<'SPEC'
100 100 0 10 openat path=/srv/app/src flags=O_RDONLY ret=3
100 100 100 110 openat path=/srv/app/dst flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=4
100 100 200 210 copy_file_range fd=3 fd2=4 path=/srv/app/src path2=/srv/app/dst off=4096 len=65536 aux=0 ret=65536
100 100 300 310 sendfile fd=3 fd2=4 path=/srv/app/src path2=/srv/app/dst mode=1 off=100000 len=10000 aux=65536 ret=10000
100 100 400 410 sendfile fd=3 fd2=9 path=/srv/app/src mode=6 off=200000 len=50000 ret=50000
100 100 420 430 sendfile fd=3 fd2=9 path=/srv/app/src mode=6 off=240000 len=50000 ret=10000
100 100 500 510 chmod path=/srv/app/attr mode=0600 ret=0
100 100 510 520 chown path=/srv/app/attr aux=4242 ctx=4343 ret=0
100 100 520 530 utimensat fd=-100 path=/srv/app/attr ret=0
100 100 530 540 fchmodat fd=-100 path=/srv/app/attr2 mode=0751 ret=0
100 100 540 550 fchmod fd=4 path=/srv/app/dst mode=0640 ret=0
100 100 550 560 fchown fd=4 path=/srv/app/dst aux=1001 ctx=1002 ret=0
100 100 560 570 utimensat fd=4 ret=0
100 100 600 610 link path=/srv/app/old path2=/srv/app/old.link ret=0
100 100 610 620 linkat fd=-100 fd2=-100 path=/srv/app/dst path2=/srv/app/dst.link ret=0
100 100 690 700 openat path=/srv/app/dst2 flags=O_RDWR|O_CREAT|O_EXCL mode=0644 ret=7
100 101 692 694 openat path=/srv/app/src flags=O_RDONLY ret=8
100 101 695 698 copy_file_range fd=8 fd2=7 path=/srv/app/src path2=/srv/app/dst2 off=0 len=4096 aux=0 ret=4096
100 101 698 699 close fd=8 ret=0
100 100 700 710 symlink path=/srv/app/cur path2=dst ret=0
100 101 800 810 openat path=/srv/app/cur flags=O_RDONLY ret=5
100 101 810 820 pread64 fd=5 off=0 len=4096 ret=4096
100 101 820 830 newfstatat fd=-100 path=/srv/app/old.link ret=0
100 101 830 840 close fd=5 ret=0
100 100 710 720 symlinkat fd=-100 path=/srv/app/abs path2=/etc/passwd ret=0
100 100 720 730 readlink path=/srv/app/cur len=4096 ret=3
100 100 730 740 readlinkat fd=-100 path=/srv/app/abs len=4096 ret=11
100 100 740 750 lchown path=/srv/app/cur aux=5000 ctx=5001 ret=0
100 100 750 760 fchownat fd=-100 path=/srv/app/cur aux=6000 ctx=-1 ret=0
100 100 760 770 chmod path=/srv/app/missing mode=0600 ret=-ENOENT
100 100 770 780 link path=/srv/app/old path2=/srv/app/old.link ret=-EEXIST
100 100 900 910 close fd=3 ret=0
100 100 910 920 close fd=4 ret=0
100 100 920 930 close fd=7 ret=0
SPEC

for base in /dev/shm /var/tmp; do
	tgt=$(mktemp -d "$base/ioreel-newops.XXXXXX")
	trap '[ -n "${KEEP:-}" ] || rm -rf "$T" "$tgt"' EXIT
	a=$tgt/srv/app
	"$IOREEL" replay "$T/t.reel" --target "$tgt" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "$base: replay failed: $(cat "$T/out")"
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	grep -q "replayed by 2 threads" "$T/out" || fail "$base: A and B did not run at once"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		cat "$T/out"
		fail "$base: outcomes differ"
	}
	# the same ops, with the original's return values, one for one (an open's is the
	# replay's own fd)
	rets() {
		"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    r = o["ret"] >= 0 if o["op"] == "openat" else o["ret"]
    print(o["tid"], o["op"], r)' | sort
	}
	diff <(rets "$T/t.reel") <(rets "$T/r.reel") || fail "$base: return values differ"
	# the summary names every new type with its latencies
	for op in copy_file_range sendfile chmod fchmod fchmodat chown lchown fchown fchownat \
		utimensat link linkat symlink symlinkat readlink readlinkat; do
		grep -qE "^ +$op +[0-9]" "$T/out" || fail "$base: $op not in the summary"
		grep -qE "^$op +#0 " "$T/out" || fail "$base: $op not in the comparison"
	done
	# op types above 63 are not async request kinds
	! grep -qE "^(aio|uring)_" "$T/out" || fail "$base: async rows in a trace without any"

	# copies: the bytes are the source's, where the trace put them
	[ "$(stat -c %s "$a/src")" = 250000 ] || fail "$base: src prepared with $(stat -c %s "$a/src")"
	[ "$(stat -c %s "$a/dst")" = 75536 ] || fail "$base: dst size $(stat -c %s "$a/dst")"
	cmp <(tail -c +4097 "$a/src" | head -c 65536) <(head -c 65536 "$a/dst") ||
		fail "$base: copy_file_range bytes differ"
	cmp <(tail -c +100001 "$a/src" | head -c 10000) <(tail -c +65537 "$a/dst") ||
		fail "$base: sendfile bytes differ"
	# inode attributes
	[ "$(stat -c %a "$a/attr")" = 600 ] || fail "$base: chmod: $(stat -c %a "$a/attr")"
	[ "$(stat -c %u:%g "$a/attr")" = 4242:4343 ] || fail "$base: chown: $(stat -c %u:%g "$a/attr")"
	[ "$(stat -c %a "$a/attr2")" = 751 ] || fail "$base: fchmodat: $(stat -c %a "$a/attr2")"
	[ "$(stat -c %a "$a/dst")" = 640 ] || fail "$base: fchmod: $(stat -c %a "$a/dst")"
	# fchownat followed cur to dst (uid only: gid -1 kept fchown's); lchown changed the link
	[ "$(stat -c %u:%g "$a/dst")" = 6000:1002 ] || fail "$base: fchown(at): $(stat -c %u:%g "$a/dst")"
	[ "$(stat -c %u:%g "$a/cur")" = 5000:5001 ] || fail "$base: lchown: $(stat -c %u:%g "$a/cur")"
	# utimensat set the times to the replay's now, not the preparation's
	prep=$(stat -c %Y "$tgt/.ioreel-prepared")
	for f in attr dst; do
		m=$(stat -c %Y "$a/$f")
		[ "$m" -ge "$prep" ] && [ "$m" -ge $(($(date +%s) - 60)) ] ||
			fail "$base: utimensat did not touch $f"
	done
	# links and symlinks
	[ "$(stat -c %h "$a/old")" = 2 ] || fail "$base: link count of old $(stat -c %h "$a/old")"
	[ "$a/old" -ef "$a/old.link" ] || fail "$base: old.link is not old"
	[ "$(stat -c %h "$a/dst")" = 2 ] && [ "$a/dst" -ef "$a/dst.link" ] || fail "$base: linkat"
	[ "$(readlink "$a/cur")" = dst ] || fail "$base: cur -> $(readlink "$a/cur")"
	[ "$(readlink "$a/abs")" = /etc/passwd ] || fail "$base: abs -> $(readlink "$a/abs")"
	[ -z "$(find "$tgt" -newer "$T/t.reel" -path "$tgt/etc*")" ] || fail "$base: /etc made"
	# thread B read through the link thread A made, and copied into the file A opened
	[ "$(stat -c %s "$a/dst2")" = 4096 ] && cmp -s <(head -c 4096 "$a/src") "$a/dst2" ||
		fail "$base: B's copy into A's dst2"
	"$IOREEL" dump --format jsonl "$T/r.reel" |
		grep '"tid":101' | grep -q '"op":"pread64".*"ret":4096' || fail "$base: B's read"
	rm -rf "$tgt"
done
echo PASS
