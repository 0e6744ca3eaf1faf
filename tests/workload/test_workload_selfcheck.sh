#!/bin/bash
# The workload's own ground truth holds: its kept file positions agree with the kernel's
# (--verify reads /proc/self/fdinfo after every positionless op), and its log covers every
# op type ioreel records, from two processes and several threads, with absolute paths.
#   test_workload_selfcheck.sh IOWORKLOAD
set -u
wl=$1
here=$(dirname "$0")
tmp=$(mktemp -d /var/tmp/ioreel-wl.XXXXXX) || exit 1
shm=$(mktemp -d /dev/shm/ioreel-wl.XXXXXX) || exit 1
trap 'rm -rf "$tmp" "$shm"' EXIT
mkdir "$tmp/s"
if ! "$wl" --dir "$tmp/s" --log "$tmp/log" --shm-dir "$shm" --threads 3 --rounds 2 --verify; then
	echo "FAIL: ioworkload --verify"
	exit 1
fi
python3 "$here/check_record.py" coverage --log "$tmp/log" || exit 1
echo PASS
