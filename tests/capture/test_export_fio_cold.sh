#!/bin/bash
# A recording of fio exported with "ioreel export fio" reads from the device where fio did.
# fio lays out its file (writes, an fsync, fadvise DONTNEED) before its job reads it; the
# export replayed the layout writes in one job and the reads in another started beside it,
# whose open dropped the file from the page cache before the layout wrote it, and left the
# DONTNEED out: the exported job's reads came from the page cache (clat p50 6 us on /var/tmp,
# ext4 on a virtio disk, against fio's own 124 us). Recorded here: fio's psync randread at
# 500 IOPS of a 16 MiB file under /var/tmp; exported under a root there, run by fio: its
# reading job's clat p50 must be a device's, a fair share of the original's.
# usage: test_export_fio_cold.sh IOREEL PRINT
source "$(dirname "$0")/lib.sh"
command -v fio > /dev/null || { echo "SKIP: fio missing"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
cat > "$dir/job.fio" <<EOF
[reader]
filename=$dir/data/f
size=16m
ioengine=psync
rw=randread
bs=4k
rate_iops=500
runtime=2
time_based=1
EOF
mkdir "$dir/data"
"$IOREEL" record -o "$dir/t.reel" -- fio --output-format=json --output="$dir/orig.json" \
	"$dir/job.fio" > "$dir/record.out" 2>&1 || fail "record: $(tail -3 "$dir/record.out")"
# fio's read clat p50 (ns), from its json: of the job that read most
p50() {
	python3 -c '
import json, sys
jobs = [j for j in json.load(open(sys.argv[1]))["jobs"] if j["read"]["total_ios"]]
j = max(jobs, key=lambda j: j["read"]["total_ios"])
print(j["jobname"], j["read"]["total_ios"], int(j["read"]["clat_ns"]["percentile"]["50.000000"]))' "$1"
}
read -r _ oreads op50 < <(p50 "$dir/orig.json") || fail "fio's own json"
echo "fio recorded: $oreads reads, clat p50 $op50 ns"
[ "$op50" -ge 30000 ] || { echo "SKIP: fio's reads took $op50 ns at p50: this disk is as fast as memory"; exit 77; }
mkdir "$dir/x"
"$IOREEL" export fio "$dir/t.reel" -o "$dir/x/t" --root "$dir/root" 2> "$dir/export.err" ||
	fail "export: $(cat "$dir/export.err")"
grep -q "later phase(s) of jobs" "$dir/export.err" || fail "no later phase: $(cat "$dir/export.err")"
grep '^;   mkdir -p ' "$dir/x/t.fio" | sed 's/^;   mkdir -p //' | while read -r d; do mkdir -p "$d"; done
( cd "$dir" && timeout 120 fio --output-format=json --output="$dir/x/fio.json" x/t.fio \
	> "$dir/x/fio.out" 2>&1 ) || fail "fio on the export: $(tail -5 "$dir/x/fio.out")"
read -r job reads p50 < <(p50 "$dir/x/fio.json") || fail "the export's fio json"
echo "exported, replayed by fio: $job $reads reads, clat p50 $p50 ns"
# the page cache's are ~6 us here; a device's at least a quarter of the original's
[ "$reads" -ge $((oreads * 9 / 10)) ] || fail "$reads reads replayed of $oreads"
[ "$p50" -ge 20000 ] && [ "$p50" -ge $((op50 / 4)) ] ||
	fail "the exported job read at $p50 ns p50 against fio's $op50: from the page cache"
echo PASS
