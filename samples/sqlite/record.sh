#!/bin/bash
# Records SQLite (the sqlite3 shell) running a small OLTP-ish workload with ioreel:
# a bank-like schema loaded in rollback-journal mode, then a TPC-B-like stream of short
# transactions in WAL mode, index builds, queries, a checkpoint and a vacuum.
#
#   bash samples/sqlite/record.sh            # writes samples/sqlite/sqlite.reel (+ .info.txt)
#   IOREEL=/path/to/ioreel OUT=/tmp/s.reel bash samples/sqlite/record.sh
#
# The SQL is generated here, deterministically (a fixed-seed Park-Miller generator in awk,
# exact in mawk's doubles), so every run issues the same statements. The database lives in
# a fixed scratch dir under /var/tmp (ext4 here): fixed so that traces recorded on different
# days name the same paths. The page cache of SQLite is kept small (cache_size) so that the
# trace has real reads, not only writes. Needs root (eBPF).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
IOREEL=${IOREEL:-build/ioreel}
case $IOREEL in /*) ;; *) IOREEL=$root/$IOREEL ;; esac
OUT=${OUT:-$here/sqlite.reel}
SCRATCH=${SCRATCH:-/var/tmp/ioreel-sample-sqlite}

[ "$(id -u)" = 0 ] || { echo "record.sh: needs root (eBPF)" >&2; exit 1; }
[ -x "$IOREEL" ] || { echo "record.sh: no ioreel at $IOREEL (build first, or set IOREEL)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "record.sh: sqlite3 not installed (apt-get install sqlite3)" >&2; exit 1; }

rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
cd "$SCRATCH"

awk '
function rnd(n) { seed = (seed * 16807) % 2147483647; return seed % n }
BEGIN {
	seed = 20261129
	naccounts = 2000; nbranches = 20
	print "PRAGMA page_size = 4096;"
	print "PRAGMA journal_mode = DELETE;"
	print "PRAGMA synchronous = FULL;"
	print "PRAGMA cache_size = 64;"
	print "CREATE TABLE branches (id INTEGER PRIMARY KEY, name TEXT, balance INTEGER);"
	print "CREATE TABLE accounts (id INTEGER PRIMARY KEY, branch INTEGER, name TEXT,"
	print "                       balance INTEGER, opened INTEGER);"
	print "CREATE TABLE history (id INTEGER PRIMARY KEY, account INTEGER, branch INTEGER,"
	print "                      delta INTEGER, at INTEGER, note TEXT);"
	# rollback-journal part: bulk load in transactions of 100 rows
	print "BEGIN;"
	for (b = 1; b <= nbranches; b++)
		printf "INSERT INTO branches VALUES (%d, %cbranch-%03d%c, 0);\n", b, 39, b, 39
	print "COMMIT;"
	for (a = 1; a <= naccounts; a++) {
		if (a % 100 == 1) print "BEGIN;"
		printf "INSERT INTO accounts VALUES (%d, %d, %ccustomer-%06d-%s%c, %d, %d);\n",
		       a, 1 + rnd(nbranches), 39, rnd(1000000), substr("abcdefghijklmnopqrstuvwxyz", 1 + rnd(26), 1 + rnd(20)), 39,
		       rnd(100000), 1700000000 + rnd(10000000)
		if (a % 100 == 0) print "COMMIT;"
	}
	print "CREATE INDEX accounts_branch ON accounts(branch);"
	# single-statement transactions: one journal + two fsyncs each
	for (i = 0; i < 40; i++)
		printf "UPDATE accounts SET balance = balance + %d WHERE id = %d;\n", rnd(1000) - 500, 1 + rnd(naccounts)
	print "SELECT branch, count(*), sum(balance) FROM accounts GROUP BY branch;"
	# WAL part: a stream of TPC-B-like transactions
	print "PRAGMA journal_mode = WAL;"
	t = 1710000000
	for (x = 0; x < 300; x++) {
		print "BEGIN;"
		n = 5 + rnd(11)
		for (k = 0; k < n; k++) {
			a = 1 + rnd(naccounts); d = rnd(2000) - 1000; t += 1 + rnd(30)
			printf "UPDATE accounts SET balance = balance + %d WHERE id = %d;\n", d, a
			printf "UPDATE branches SET balance = balance + %d WHERE id = (SELECT branch FROM accounts WHERE id = %d);\n", d, a
			printf "INSERT INTO history (account, branch, delta, at, note) SELECT %d, branch, %d, %d, %cpayment %08d%c FROM accounts WHERE id = %d;\n",
			       a, d, t, 39, rnd(100000000), 39, a
		}
		print "COMMIT;"
		if (x % 25 == 24) {
			printf "SELECT count(*), sum(delta) FROM history WHERE account = %d;\n", 1 + rnd(naccounts)
			printf "SELECT id, name, balance FROM accounts WHERE branch = %d ORDER BY balance DESC LIMIT 5;\n", 1 + rnd(nbranches)
		}
		if (x == 150)
			print "CREATE INDEX history_account ON history(account, at);"
	}
	print "SELECT b.id, b.balance, sum(a.balance) FROM branches b JOIN accounts a ON a.branch = b.id GROUP BY b.id;"
	print "SELECT count(*) FROM history h JOIN accounts a ON a.id = h.account WHERE h.delta < -900;"
	print "PRAGMA wal_checkpoint(TRUNCATE);"
	print "DELETE FROM history WHERE at < 1710020000;"
	print "PRAGMA journal_mode = DELETE;"
	print "VACUUM;"
	print "PRAGMA integrity_check;"
}' > workload.sql

echo "record.sh: $(grep -c '^INSERT' workload.sql) inserts, $(grep -c '^COMMIT' workload.sql) explicit transactions in $SCRATCH/workload.sql" >&2
# how fast the disk syncs, before and after the recording: the fidelity test compares it
# with the disk's speed on the day it replays
python3 "$root/tests/samples/sync_probe.py" "$SCRATCH" > "$SCRATCH/syncprobe.before"
"$IOREEL" record -o "$OUT" -- sqlite3 "$SCRATCH/bank.db" < workload.sql > sqlite.out
echo "record.sh: sqlite3 printed $(wc -l < sqlite.out) lines, integrity: $(tail -1 sqlite.out)" >&2
echo "$(cat "$SCRATCH/syncprobe.before") $(python3 "$root/tests/samples/sync_probe.py" "$SCRATCH")" \
	> "${OUT%.reel}.syncprobe"
"$IOREEL" info "$OUT" > "${OUT%.reel}.info.txt"
echo "record.sh: disk sync probe (8 KiB pwrite + fdatasync, median ns) before, after:" \
	"$(cat "${OUT%.reel}.syncprobe")" >&2
echo "record.sh: trace $OUT ($(stat -c %s "$OUT") bytes), summary ${OUT%.reel}.info.txt"
