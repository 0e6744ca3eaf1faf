#!/bin/bash
# --cgroup: the processes in a cgroup v2 (and what they fork) are recorded, a process
# outside it doing the same thing at the same time is not.
source "$(dirname "$0")/lib.sh"
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$root" ] && [ -w "$root" ] || { echo "SKIP: no writable cgroup2 mount"; exit 77; }
cg=$root/ioreel-test-$$
mkdir "$cg" || { echo "SKIP: cannot make a cgroup"; exit 77; }
pids=
trap 'kill $pids 2>/dev/null; rmdir "$cg" 2>/dev/null; rm -rf "$dir"' EXIT
echo in > "$dir/inside"
echo out > "$dir/outside"
wait_go="while [ ! -e $dir/go ]; do sleep 0.02; done"
sh -c "echo \$\$ > $cg/cgroup.procs; $wait_go; cat $dir/inside > /dev/null" &
pids="$pids $!"
sh -c "$wait_go; cat $dir/outside > /dev/null" &
pids="$pids $!"
"$IOREEL" record -o "$dir/t.reel" --cgroup "${cg#$root/}" -d 2 2> "$dir/rec.err" &
rec=$!
for i in $(seq 200); do grep -q recording "$dir/rec.err" && break; sleep 0.05; done
touch "$dir/go"
wait $pids
pids=
wait $rec || { echo "FAIL: record exited $?"; cat "$dir/rec.err"; exit 1; }
"$PRINT" "$dir/t.reel" > "$dir/ops.txt" || { echo "FAIL: trace unreadable"; exit 1; }
fail=0
grep -Eq "^op=openat .* path=$dir/inside .* ret=[0-9]+ " "$dir/ops.txt" ||
	{ echo "FAIL: the cgroup's cat is not in the trace"; fail=1; }
grep -Eq "^op=read .* path=$dir/inside .* offset=0 len=[0-9]+ ret=3 " "$dir/ops.txt" ||
	{ echo "FAIL: the cgroup's read is not in the trace"; fail=1; }
if grep -q "path=$dir/outside" "$dir/ops.txt"; then
	echo "FAIL: a process outside the cgroup was recorded"
	fail=1
fi
grep -q "^meta cgroup=" "$dir/ops.txt" || { echo "FAIL: no cgroup meta"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
