#!/bin/bash
# Records PostgreSQL 15 under pgbench with ioreel: the postmaster and every process it has
# or forks (checkpointer, background writer, WAL writer, the backends of pgbench's clients),
# followed by pid with "ioreel record -p", for a fixed time while pgbench runs TPC-B-like
# transactions against it.
#
#   bash samples/postgres/record.sh          # writes samples/postgres/pgbench.reel (+ .info.txt, .syncprobe)
#   IOREEL=/path/to/ioreel OUT=/tmp/pg.reel DURATION=10 CLIENTS=4 bash samples/postgres/record.sh
#
# The cluster is made from scratch (initdb) in a fixed dir under /var/tmp (ext4 here), so
# that recordings made on different days name the same paths; the server listens on a unix
# socket in that dir only (no TCP), runs as the postgres user, and is stopped at the end.
# Needs root (eBPF) and postgresql-15.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
IOREEL=${IOREEL:-build/ioreel}
case $IOREEL in /*) ;; *) IOREEL=$root/$IOREEL ;; esac
OUT=${OUT:-$here/pgbench.reel}
SCRATCH=${SCRATCH:-/var/tmp/ioreel-sample-postgres}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PORT=${PORT:-5499}
DURATION=${DURATION:-10} # capture; pgbench runs 2 s less, inside it
CLIENTS=${CLIENTS:-4}

[ "$(id -u)" = 0 ] || { echo "record.sh: needs root (eBPF)" >&2; exit 1; }
[ -x "$IOREEL" ] || { echo "record.sh: no ioreel at $IOREEL (build first, or set IOREEL)" >&2; exit 1; }
[ -x "$PGBIN/postgres" ] || { echo "record.sh: no PostgreSQL in $PGBIN (apt-get install postgresql-15)" >&2; exit 1; }
id postgres >/dev/null 2>&1 || { echo "record.sh: no postgres user" >&2; exit 1; }

as_pg() { su postgres -s /bin/sh -c "$*"; }
stop_pg() { as_pg "$PGBIN/pg_ctl -D $SCRATCH/data -m fast -w stop" >/dev/null 2>&1 || true; }

stop_pg
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH/sock"
chown -R postgres:postgres "$SCRATCH"
trap stop_pg EXIT

as_pg "$PGBIN/initdb -D $SCRATCH/data -A trust -U postgres" >/dev/null
as_pg "$PGBIN/pg_ctl -D $SCRATCH/data -l $SCRATCH/server.log -w \
	-o \"-c listen_addresses='' -k $SCRATCH/sock -p $PORT\" start" >/dev/null
pgb() { "$PGBIN/pgbench" -h "$SCRATCH/sock" -p "$PORT" -U postgres "$@" postgres; }
pgb -i -s 1 -q 2>&1 | tail -1 >&2

postmaster=$(head -1 "$SCRATCH/data/postmaster.pid")
# how fast the disk syncs, before and after the recording: the fidelity test compares it
# with the disk's speed on the day it replays
python3 "$root/tests/samples/sync_probe.py" "$SCRATCH" > "$SCRATCH/syncprobe.before"
echo "record.sh: postmaster $postmaster, recording ${DURATION}s to $OUT" >&2
"$IOREEL" record -o "$OUT" -p "$postmaster" -d "$DURATION" 2> "$SCRATCH/record.err" &
rec=$!
for _ in $(seq 200); do grep -q recording "$SCRATCH/record.err" && break; sleep 0.05; done
pgb -c "$CLIENTS" -j 2 -T $((DURATION - 2)) > "$SCRATCH/pgbench.out" 2>&1
status=0
wait $rec || status=$?
cat "$SCRATCH/record.err" >&2
grep -E "^(tps|number of transactions actually processed)" "$SCRATCH/pgbench.out" >&2
echo "$(cat "$SCRATCH/syncprobe.before") $(python3 "$root/tests/samples/sync_probe.py" "$SCRATCH")" \
	> "${OUT%.reel}.syncprobe"
"$IOREEL" info "$OUT" > "${OUT%.reel}.info.txt"
echo "record.sh: disk sync probe (8 KiB pwrite + fdatasync, median ns) before, after:" \
	"$(cat "${OUT%.reel}.syncprobe")" >&2
echo "record.sh: trace $OUT ($(stat -c %s "$OUT") bytes), summary ${OUT%.reel}.info.txt" >&2
exit $status
