#!/bin/bash
# A ".." right after /proc/self/cwd, /proc/self/fd/N or /proc/self/root climbs from the
# directory the link stands for, as the kernel walks it, not from the link's name: with the
# cwd reached through a symlink (a/link -> ../b/c), "/proc/self/cwd/../x" is b/x, and so is
# "/proc/self/fd/N/../z" of an fd opened on a/link; "/proc/self/root/.." is the root itself,
# and a chrooted process's "/proc/self/cwd/../../q" stays beneath its root. They were taken
# out lexically ("/proc/self/x", a /proc name: their I/O left out as non-file; a/x had it
# been resolved by the cwd's name). Where the kernel can no longer say where it led (the
# cwd removed since), the name stays the application's, counted (capture.links_unresolved),
# and the replay leaves its ops out saying why, rather than write at a guessed place.
source "$(dirname "$0")/lib.sh"
app=$dir/app
jail=$dir/jail
mkdir -p "$app/a" "$app/b/c" "$jail/sub" "$jail/proc" || exit 1
ln -s ../b/c "$app/a/link" || exit 1
mount -t proc proc "$jail/proc" || { echo "SKIP: cannot mount proc in the jail"; exit 77; }
trap 'umount "$jail/proc"; rm -rf --one-file-system "$dir"' EXIT
cat >"$dir/app.py" <<'PY'
import os, sys
app, jail = sys.argv[1], sys.argv[2]
def put(name, n):
    with open(name, "wb") as f:
        f.write(b"." * n)
os.chdir(app + "/a/link")
put("/proc/self/cwd/../x", 1000)
fd = os.open(app + "/a/link", os.O_RDONLY | os.O_DIRECTORY)
put("/proc/self/fd/%d/../z" % fd, 2000)
os.close(fd)
put("/proc/self/root/.." + app + "/w", 3000)
os.mkdir(app + "/gone")
os.chdir(app + "/gone")
os.rmdir(app + "/gone")
put("/proc/self/cwd/../u", 4000)
pid = os.fork()
if pid == 0:
    os.chroot(jail)
    os.chdir("/sub")
    put("/proc/self/cwd/../../q", 5000)
    put("/proc/self/root/../r", 6000)
    os._exit(0)
os.waitpid(pid, 0)
PY
"$IOREEL" record -q -o "$dir/t.reel" -- /usr/bin/python3 "$dir/app.py" "$app" "$jail" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" >"$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
for f in "$app/b/x" "$app/b/z" "$app/w" "$jail/q" "$jail/r"; do
	grep -Eq "^op=openat .*path=$f .* ret=[0-9]+ " "$dir/ops.txt" ||
		{ echo "FAIL: no open of $f by its name"; fail=1; }
done
grep -Eq "^op=openat .*path=/proc/self/cwd/\.\./u .* ret=[0-9]+ " "$dir/ops.txt" ||
	{ echo "FAIL: the open from the removed cwd is not kept as /proc/self/cwd/../u"; fail=1; }
grep -q "^meta capture.links_unresolved=1$" "$dir/ops.txt" ||
	{ echo "FAIL: capture.links_unresolved is not 1: $(grep links_unresolved "$dir/ops.txt")"; fail=1; }
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" >"$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
grep -q "outcomes differing from the original: 0" "$dir/out" ||
	{ echo "FAIL: outcomes differ:"; grep -A5 "outcomes differing" "$dir/out"; fail=1; }
# u's ops alone are not replayed, with the reason
nu=$(grep -c " path=/proc/self/cwd/\.\./u " "$dir/ops.txt")
grep -q "ops not replayed: $nu$" "$dir/out" ||
	{ echo "FAIL: want u's $nu ops not replayed:"; grep -A4 "not replayed" "$dir/out"; fail=1; }
grep -q "openat /proc/self/cwd/../u (pid [0-9]* tid [0-9]* fd -100): where its \"..\" led, the recording could not say" "$dir/out" ||
	{ echo "FAIL: the reason is not said:"; grep -A4 "not replayed" "$dir/out"; fail=1; }
for f in "$app/b/x:1000" "$app/b/z:2000" "$app/w:3000" "$jail/q:5000" "$jail/r:6000"; do
	got=$(stat -c %s "$dir/tgt${f%:*}" 2>/dev/null || echo none)
	[ "$got" = "${f#*:}" ] || { echo "FAIL: ${f%:*} is $got bytes in the target, want ${f#*:}"; fail=1; }
done
[ -z "$(find "$dir/tgt" -name u)" ] || { echo "FAIL: u was written somewhere"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
