#!/bin/bash
# ioreel import strace of path ops on "/proc/self/fd/N" (tar x sets each directory's mode
# with chmod("/proc/self/fd/N") of an O_PATH fd): an op that follows the path is an op on fd
# N's file, as the capturer records it (0ac2e77), with "/rest" joined to it; one that does
# not follow its last component (lchown, AT_SYMLINK_NOFOLLOW) acts on the /proc entry and is
# left out as non-file I/O, as is an fd the log never opened, and a ".." climbing from fd N's
# directory (its parent is not what the name says when a symlink led there: not "/w/y"). Replayed beneath a target, the
# directory ends with the mode tar gave it (the chmod was left out: it kept mkdir's 0700).
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/t.strace" <<'LOG'
4000  1700000000.000000 mkdirat(AT_FDCWD</w>, "x", 0700) = 0 <0.000010>
4000  1700000000.001000 openat(AT_FDCWD</w>, "x", O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_PATH) = 5</w/x> <0.000010>
4000  1700000000.002000 newfstatat(5</w/x>, "", {st_mode=S_IFDIR|0700, st_size=4096, ...}, AT_EMPTY_PATH) = 0 <0.000008>
4000  1700000000.003000 chmod("/proc/self/fd/5", 0750) = 0 <0.000018>
4000  1700000000.004000 fchownat(AT_FDCWD</w>, "/proc/4000/fd/5", 0, 0, 0) = 0 <0.000010>
4000  1700000000.005000 newfstatat(AT_FDCWD</w>, "/proc/self/fd/5/f", 0x7ffc, 0) = -1 ENOENT (No such file or directory) <0.000010>
4000  1700000000.005500 newfstatat(AT_FDCWD</w>, "/proc/self/fd/5/../y", 0x7ffc, 0) = -1 ENOENT (No such file or directory) <0.000010>
4000  1700000000.006000 lchown("/proc/self/fd/5", 0, 0) = 0 <0.000010>
4000  1700000000.007000 utimensat(AT_FDCWD</w>, "/proc/self/fd/5", NULL, AT_SYMLINK_NOFOLLOW) = 0 <0.000010>
4000  1700000000.008000 chmod("/proc/self/fd/9", 0755) = -1 EBADF (Bad file descriptor) <0.000010>
4000  1700000000.009000 close(5</w/x>) = 0 <0.000010>
LOG

"$IOREEL" import strace "$dir/t.strace" -o "$dir/t.reel" 2> "$dir/t.err" ||
	{ echo "FAIL: import exited $?"; cat "$dir/t.err"; exit 1; }
"$IOREEL" dump --format jsonl "$dir/t.reel" > "$dir/t.jsonl" || { echo "FAIL: dump"; exit 1; }
python3 - "$dir/t.jsonl" <<'PY' || exit 1
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
got = [(o["op"], o["path"], o["mode"], o["ret"]) for o in ops]
want = [("mkdirat", "/w/x", 0o700, 0), ("openat", "/w/x", 0, 5), ("fstat", "/w/x", 0, 0),
        ("chmod", "/w/x", 0o750, 0), ("fchownat", "/w/x", 0, 0),
        ("newfstatat", "/w/x/f", 0, -2), ("close", "/w/x", 0, 0)]
if got != want:
    print("FAIL: ops\n  got  %s\n  want %s" % (got, want))
    sys.exit(1)
PY

"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" --timing afap -o "$dir/res.reel" \
	> "$dir/replay.out" 2>&1 || { echo "FAIL: replay exited $?"; cat "$dir/replay.out"; exit 1; }
grep -q "outcomes differing from the original: 0$" "$dir/replay.out" ||
	{ echo "FAIL: outcomes differ in the replay:"; cat "$dir/replay.out"; exit 1; }
[ "$(stat -c %a "$dir/tgt/w/x")" = 750 ] ||
	{ echo "FAIL: replayed directory mode $(stat -c %a "$dir/tgt/w/x"), want 750"; exit 1; }
echo PASS
