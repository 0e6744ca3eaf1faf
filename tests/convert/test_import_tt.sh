#!/bin/bash
# ioreel import strace reads -tt logs (HH:MM:SS.ffffff, no date) as -ttt ones: the same log
# written both ways, across midnight (a time going back by more than 12 h is the next day),
# imports to the same ops at the same times. A log without time stamps, or of no strace
# lines at all, is an error with one line saying why, and no trace is left: it used to
# import as "0 ops", exit 0. A real strace -tt run, when strace is here, imports as its
# -ttt twin does.
# usage: test_import_tt.sh IOREEL
set -u
IOREEL=$1
dir=$(mktemp -d /var/tmp/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1700006400 is midnight (UTC): the log runs from 23:59:59.9 to 00:00:00.3 the next day
cat > "$dir/ttt.strace" <<'LOG'
300 1700006399.900000 openat(AT_FDCWD</w>, "/w/a", O_RDWR|O_CREAT, 0644) = 3</w/a> <0.000020>
300 1700006399.950000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 301 <0.000100>
301 1700006399.960000 write(3</w/a>, "abcd", 4 <unfinished ...>
300 1700006399.999990 pread64(3</w/a>, "", 4096, 8192) = 0 <0.000010>
301 1700006400.000100 <... write resumed>) = 4 <0.040100>
301 1700006400.100000 fsync(3</w/a>) = 0 <0.001000>
301 1700006400.200000 exit_group(0) = ?
301 1700006400.200100 +++ exited with 0 +++
300 1700006400.300000 pwrite64(3</w/a>, "x", 1, 100) = 1 <0.000010>
300 1700006400.300500 close(3</w/a>) = 0 <0.000005>
LOG
python3 - "$dir" <<'PY' || fail "writing the -tt log"
import sys, time
d = sys.argv[1]
with open(d + "/ttt.strace") as f, open(d + "/tt.strace", "w") as o:
    for line in f:
        pid, ts, rest = line.split(" ", 2)
        sec, frac = ts.split(".")
        o.write("%s %s.%s %s" % (pid, time.strftime("%H:%M:%S", time.gmtime(int(sec))), frac, rest))
PY
grep -q '^301 00:00:00.000100 <... write resumed>' "$dir/tt.strace" || fail "-tt log: $(cat "$dir/tt.strace")"
for f in ttt tt; do
	"$IOREEL" import strace "$dir/$f.strace" -o "$dir/$f.reel" 2> "$dir/$f.err" ||
		fail "import of the -$f log exited $?: $(cat "$dir/$f.err")"
	grep -q 'imported 8 ops' "$dir/$f.err" || fail "-$f: $(cat "$dir/$f.err")"
	"$IOREEL" dump --format jsonl "$dir/$f.reel" > "$dir/$f.jsonl" || fail "dump -$f"
done
diff -u "$dir/ttt.jsonl" "$dir/tt.jsonl" || fail "the -tt log's ops differ from the -ttt log's"
# the fsync at 00:00:00.100, 200 ms after the first line
grep -q '"op":"fsync".*"start_ns":200000000,' "$dir/tt.jsonl" || fail "fsync's time: $(cat "$dir/tt.jsonl")"

# no time stamps: one line, status 1, no trace
sed -E 's/^([0-9]+) [0-9.]+ /\1 /' "$dir/ttt.strace" > "$dir/none.strace"
"$IOREEL" import strace "$dir/none.strace" -o "$dir/none.reel" 2> "$dir/none.err" &&
	fail "an untimed log imported with status 0: $(cat "$dir/none.err")"
[ "$(wc -l < "$dir/none.err")" = 1 ] || fail "want one line: $(cat "$dir/none.err")"
grep -q 'strace logs need -ttt or -tt timestamps' "$dir/none.err" || fail "untimed: $(cat "$dir/none.err")"
[ ! -e "$dir/none.reel" ] || fail "an empty trace left behind"
# not strace output at all
printf 'hello\nworld\n' > "$dir/junk.strace"
"$IOREEL" import strace "$dir/junk.strace" -o "$dir/junk.reel" 2> "$dir/junk.err" &&
	fail "junk imported with status 0"
[ "$(wc -l < "$dir/junk.err")" = 1 ] && grep -q 'no op in it: 2 of its 2 lines could not be parsed' "$dir/junk.err" ||
	fail "junk: $(cat "$dir/junk.err")"

command -v strace > /dev/null || { echo "SKIP (the rest): strace missing"; echo PASS; exit 0; }
mkdir "$dir/w" && echo hello > "$dir/w/in"
for f in ttt tt; do
	strace -f -$f -T -y -o "$dir/live-$f.strace" sh -c "cat $dir/w/in > $dir/w/out" ||
		fail "strace -$f"
	"$IOREEL" import strace "$dir/live-$f.strace" -o "$dir/live-$f.reel" 2> "$dir/live-$f.err" ||
		fail "import of a real -$f log: $(cat "$dir/live-$f.err")"
	n=$("$IOREEL" dump --format jsonl "$dir/live-$f.reel" | grep -c "\"path\":\"$dir/w/")
	[ "$n" -ge 3 ] || fail "-$f: $n ops on the files, want the open of each and the write"
done
echo PASS
