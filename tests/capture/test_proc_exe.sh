#!/bin/bash
# A read of /proc/self/exe is a read of the program's binary (a program reading what it
# carries after its code): the trace names that file, as the kernel ran it (the exec's
# linux_binprm.interp): a script's interpreter, not the script; a program posix_spawn'd as
# "/proc/self/exe" the same program as its parent. It was left out as non-file, a /proc name.
# Run from a memfd (fexecve: runc does), the binary is no storage: its reads stay non-file.
source "$(dirname "$0")/lib.sh"
cat >"$dir/app.py" <<'PY'
#!/usr/bin/python3
import os, sys
with open("/proc/self/exe", "rb") as f:
    f.read(5000)
code = 'open("/proc/self/exe", "rb").read(7000)'
pid = os.posix_spawn("/proc/self/exe", ["python3", "-c", code], os.environ)
os.waitpid(pid, 0)
if os.fork() == 0:
    fd = os.memfd_create("cat")
    with open("/bin/cat", "rb") as f:
        os.write(fd, f.read())
    out = os.open("/dev/null", os.O_WRONLY)
    os.dup2(out, 1)
    os.execve(fd, ["cat", "/proc/self/exe"], os.environ)
os.wait()
PY
chmod +x "$dir/app.py"
"$IOREEL" record -q -o "$dir/t.reel" -- "$dir/app.py" || { echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t.reel" >"$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
if grep -Eq " path=(/proc/(self|[0-9]+)/exe|/dev/fd/[0-9]+|/memfd:)" "$dir/ops.txt"; then
	echo "FAIL: ops named after /proc/self/exe, an fd or a memfd, not the program:"
	grep -E " path=(/proc/(self|[0-9]+)/exe|/dev/fd/[0-9]+|/memfd:)" "$dir/ops.txt" | head -5
	fail=1
fi
# the script's interpreter, opened through /proc/self/exe by the script and its spawned child
n=$(grep -Ec "^op=openat .*path=/usr/bin/python3 .* ret=[0-9]+ " "$dir/ops.txt")
[ "$n" = 2 ] || { echo "FAIL: $n opens of /usr/bin/python3, want 2 (both /proc/self/exe's)"; fail=1; }
grep -Eq "^op=openat .*path=$dir/app.py .* ret=[0-9]+ " "$dir/ops.txt" ||
	{ echo "FAIL: python's open of its script is not there"; fail=1; }
"$IOREEL" replay "$dir/t.reel" --target "$dir/tgt" -T afap -o "$dir/r.reel" >"$dir/out" 2>&1 ||
	{ echo "FAIL: replay exited $?"; cat "$dir/out"; exit 1; }
grep -q "outcomes differing from the original: 0" "$dir/out" && grep -q "ops not replayed: 0" "$dir/out" || {
	echo "FAIL: the replay differs:"
	grep -A5 -e "outcomes differing" -e "not replayed" "$dir/out"
	fail=1
}
# its reads of the binary read as many bytes in the replay
"$IOREEL" dump --format csv "$dir/t.reel" | awk -F, '$1=="read" && $6=="/usr/bin/python3"{print $10}' >"$dir/want"
"$IOREEL" dump --format csv "$dir/r.reel" | awk -F, '$1=="read" && $6=="/usr/bin/python3"{print $10}' >"$dir/got"
[ -s "$dir/want" ] && cmp -s "$dir/want" "$dir/got" ||
	{ echo "FAIL: reads of the binary: $(tr '\n' ' ' <"$dir/want") originally, $(tr '\n' ' ' <"$dir/got") replayed"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
