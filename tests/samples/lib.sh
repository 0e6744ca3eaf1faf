# Sourced by the samples tests with the sample's name in $1: where its trace is and what it
# must look like. Sets SAMPLE, TRACE, SCRATCH (the dir it was recorded in), PROGRAM (in the
# trace's meta command; empty for traces recorded with -p), DBFILES (regex: the application's data files), DATAOPS (the op types
# that carry the workload, compared closely by the fidelity test), MIN_THREADS, MIN_LOCKS
# (fcntl_lock ops the application takes, format 1.3).
set -u
IOREEL=${IOREEL:-build/ioreel}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SAMPLES=${SAMPLES:-$HERE/../../samples}
SAMPLE=${1:?sample name}
TRACE=$SAMPLES/$SAMPLE/$SAMPLE.reel

case $SAMPLE in
sqlite)
	SCRATCH=/var/tmp/ioreel-sample-sqlite
	PROGRAM=sqlite3
	DBFILES='/bank\.db(-wal|-shm|-journal)?$'
	DATAOPS="pwrite64 pread64 fdatasync"
	MIN_THREADS=1
	# a reader's and a writer's locks around every transaction
	MIN_LOCKS=1000
	;;
rocksdb)
	SCRATCH=/var/tmp/ioreel-sample-rocksdb
	PROGRAM=db_bench
	DBFILES='/db/[0-9]+\.(log|sst)$'
	DATAOPS="write pread64 fdatasync"
	# main, 2 writer and 2 reader client threads, flush and compaction threads
	MIN_THREADS=5
	# the LOCK file's F_SETLK, taken once per DB::Open
	MIN_LOCKS=1
	;;
postgres)
	TRACE=$SAMPLES/postgres/pgbench.reel
	SCRATCH=/var/tmp/ioreel-sample-postgres
	PROGRAM= # recorded with -p: no command in the meta
	DBFILES='/data/(base/[0-9]+/[0-9]+(_fsm|_vm)?|pg_wal/[0-9A-F]{24})$'
	DATAOPS="pwrite64 fdatasync lseek"
	# the backends of pgbench's 4 clients
	MIN_THREADS=4
	# attached with -p after start-up: backends take no file locks
	MIN_LOCKS=0
	;;
*)
	echo "unknown sample $SAMPLE" >&2
	exit 1
	;;
esac

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

[ -x "$IOREEL" ] || skip "no ioreel binary at $IOREEL"
[ -f "$TRACE" ] || fail "no sample trace $TRACE"
