#!/bin/bash
# ioreel import strace follows chroot(2), as the recorder does: after chroot("/var/spool/
# postfix") a process's absolute paths lie beneath it (postfix's cleanup looks up
# /etc/localtime there and finds none). The import took them as the host's paths, files
# other processes opened, and the replay found them where the original had ENOENT. A
# forked child keeps its parent's root; "/.." stays at the root.
set -u
IOREEL=$1
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

cat > "$dir/t.strace" <<'LOG'
4000  1700000000.000000 openat(AT_FDCWD</w>, "/etc/localtime", O_RDONLY|O_CLOEXEC) = 3</etc/localtime> <0.000010>
4000  1700000000.000100 close(3</etc/localtime>) = 0 <0.000010>
4000  1700000000.001000 chroot("/var/spool/postfix") = 0 <0.000010>
4000  1700000000.002000 openat(AT_FDCWD</var/spool/postfix>, "/etc/localtime", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory) <0.000010>
4000  1700000000.003000 newfstatat(AT_FDCWD</var/spool/postfix>, "/../etc/hosts", 0x7ffc, 0) = -1 ENOENT (No such file or directory) <0.000010>
4000  1700000000.004000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD) = 4001 <0.000050>
4001  1700000000.005000 openat(AT_FDCWD</var/spool/postfix>, "/etc/services", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000010>
LOG

"$IOREEL" import strace "$dir/t.strace" -o "$dir/t.reel" 2> "$dir/t.err" ||
	{ echo "FAIL: import exited $?"; cat "$dir/t.err"; exit 1; }
"$IOREEL" dump --format csv "$dir/t.reel" | awk -F, 'NR > 1 && $1 !~ /^(close|fork|execve|exit)$/ { print $1, $2, $6, $10 }' > "$dir/got"
cat > "$dir/want" <<'EOF2'
openat 4000 /etc/localtime 3
openat 4000 /var/spool/postfix/etc/localtime -2
newfstatat 4000 /var/spool/postfix/etc/hosts -2
openat 4001 /var/spool/postfix/etc/services -2
EOF2
diff "$dir/want" "$dir/got" || { echo "FAIL: paths after chroot (want, got above)"; exit 1; }
echo PASS
