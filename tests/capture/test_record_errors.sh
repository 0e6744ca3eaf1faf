#!/bin/bash
# ioreel record's failures say what failed: an output that cannot be created is named, and a
# command that cannot be executed (not found, not executable) is said to be so, exit 1, with
# no trace left behind (it would hold only the failed execve, as if the command had run).
source "$(dirname "$0")/lib.sh"

fail=0
check() { # what, condition...
	local what=$1
	shift
	if ! "$@"; then
		echo "FAIL: $what"
		fail=1
	fi
}

"$IOREEL" record -q -o /nonexistent/x.reel -- true 2>"$dir/err1"
rc=$?
cat "$dir/err1"
check "missing dir: exit $rc, want 1" [ $rc = 1 ]
check "missing dir: the path is named" grep -q "failed to create /nonexistent/x.reel: No such file or directory" "$dir/err1"

"$IOREEL" record -q -o "$dir/nf.reel" -- /nonexistent/cmd arg 2>"$dir/err2"
rc=$?
cat "$dir/err2"
check "missing command: exit $rc, want 1" [ $rc = 1 ]
check "missing command: said" grep -q "cannot run /nonexistent/cmd: No such file or directory" "$dir/err2"
check "missing command: no trace left" [ ! -e "$dir/nf.reel" ]
! grep -q "exited with status" "$dir/err2" || { echo "FAIL: missing command: exit status line"; fail=1; }

printf '#!/bin/sh\ntrue\n' >"$dir/noexec"
chmod 0644 "$dir/noexec"
"$IOREEL" record -q -o "$dir/ne.reel" -- "$dir/noexec" 2>"$dir/err3"
rc=$?
cat "$dir/err3"
check "not executable: exit $rc, want 1" [ $rc = 1 ]
check "not executable: said" grep -q "cannot run $dir/noexec: Permission denied" "$dir/err3"
check "not executable: no trace left" [ ! -e "$dir/ne.reel" ]

# a command that runs and fails is recorded as before: exit 0, its status said
"$IOREEL" record -o "$dir/f.reel" -- sh -c 'exit 127' 2>"$dir/err4"
rc=$?
check "sh exit 127: exit $rc, want 0" [ $rc = 0 ]
check "sh exit 127: status said" grep -q "the command exited with status 127" "$dir/err4"
check "sh exit 127: trace written" "$PRINT" "$dir/f.reel" >/dev/null

# --cgroup: the path tried is named, and a directory outside every cgroup v2 hierarchy (a v1
# one, or any other) is said to be that (both said only 'No such file or directory')
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$root" ]; then
	"$IOREEL" record -q -o "$dir/cg.reel" --cgroup nonexist-$$ -d 1 2>"$dir/err5"
	rc=$?
	cat "$dir/err5"
	check "cgroup nonexist: exit $rc, want 1" [ $rc = 1 ]
	check "cgroup nonexist: the path tried is named" grep -qF \
		"failed to record: --cgroup nonexist-$$: $root/nonexist-$$: No such file or directory" "$dir/err5"
	v1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/self/mounts)
	for d in $v1 "$dir"; do
		"$IOREEL" record -q -o "$dir/cg.reel" --cgroup "$d" -d 1 2>"$dir/err6"
		rc=$?
		cat "$dir/err6"
		check "cgroup $d: exit $rc, want 1" [ $rc = 1 ]
		check "cgroup $d: not v2, said" grep -qF \
			"failed to record: --cgroup $d: not a cgroup v2 directory (cgroup2 is mounted at $root)" "$dir/err6"
	done
fi

[ $fail = 0 ] && echo "PASS"
exit $fail
