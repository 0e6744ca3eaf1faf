#!/bin/bash
# Records RocksDB's db_bench (Debian's rocksdb-tools) with ioreel: fillseq, overwrite and
# readrandom, two client threads each, with small memtables and SST files so that the short
# run still flushes and compacts in RocksDB's background threads (which rename themselves
# rocksdb:low / rocksdb:high: the capture follows them by pid, not by name).
#
#   bash samples/rocksdb/record.sh           # writes samples/rocksdb/rocksdb.reel (+ .info.txt)
#   IOREEL=/path/to/ioreel OUT=/tmp/r.reel NUM=10000 bash samples/rocksdb/record.sh
#
# The block cache is 1 MiB (the data is ~6 MiB) so readrandom reads SST blocks through
# pread64 instead of answering from memory. Fixed seed; the thread interleaving is not
# deterministic, the op mix is. Needs root (eBPF).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
IOREEL=${IOREEL:-build/ioreel}
case $IOREEL in /*) ;; *) IOREEL=$root/$IOREEL ;; esac
OUT=${OUT:-$here/rocksdb.reel}
SCRATCH=${SCRATCH:-/var/tmp/ioreel-sample-rocksdb}
NUM=${NUM:-30000}

[ "$(id -u)" = 0 ] || { echo "record.sh: needs root (eBPF)" >&2; exit 1; }
[ -x "$IOREEL" ] || { echo "record.sh: no ioreel at $IOREEL (build first, or set IOREEL)" >&2; exit 1; }
DB_BENCH=$(command -v db_bench || command -v rocksdb_db_bench || true)
[ -n "$DB_BENCH" ] || { echo "record.sh: db_bench not installed (apt-get install rocksdb-tools)" >&2; exit 1; }

rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
cd "$SCRATCH"

# how fast the disk syncs, before and after the recording: the fidelity test compares it
# with the disk's speed on the day it replays
python3 "$root/tests/samples/sync_probe.py" "$SCRATCH" > "$SCRATCH/syncprobe.before"
"$IOREEL" record -o "$OUT" -- "$DB_BENCH" --db="$SCRATCH/db" \
	--benchmarks=fillseq,overwrite,readrandom --num="$NUM" --reads=20000 --threads=2 \
	--value_size=100 --compression_type=none --seed=42 \
	--write_buffer_size=1048576 --target_file_size_base=1048576 \
	--max_bytes_for_level_base=4194304 --max_background_jobs=2 \
	--cache_size=1048576 > db_bench.out 2>&1
grep -E '^(fillseq|overwrite|readrandom) ' db_bench.out | sed 's/^/record.sh: /' >&2
echo "$(cat "$SCRATCH/syncprobe.before") $(python3 "$root/tests/samples/sync_probe.py" "$SCRATCH")" \
	> "${OUT%.reel}.syncprobe"
"$IOREEL" info "$OUT" > "${OUT%.reel}.info.txt"
echo "record.sh: disk sync probe (8 KiB pwrite + fdatasync, median ns) before, after:" \
	"$(cat "${OUT%.reel}.syncprobe")" >&2
threads=$("$IOREEL" dump -f jsonl "$OUT" | grep -o '"tid":[0-9]*' | sort -u | wc -l)
echo "record.sh: ops from $threads threads" >&2
echo "record.sh: trace $OUT ($(stat -c %s "$OUT") bytes), summary ${OUT%.reel}.info.txt"
