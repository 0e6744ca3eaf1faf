#!/bin/bash
# Randomized traces (stress_gen.py: 1-150 threads in 1-5 processes that start and end at
# different times, fds shared by a process's threads, dups, creates, renames over and
# chains of renames, links, symlinks, mkdir/rmdir, truncates, libaio and io_uring requests
# reaped by other threads with ids reused, bursts of 9-80 threads on one directory, fd or
# name, long runs of one thread), each one what a kernel could have done,
# replayed as fast as possible (whole segments, and segments of 16 or 64 items cut whenever
# a worker runs out first: IOREEL_TEST_SEGMENT), with the think time and with the original
# timing (both at --speed 1000). Every replay must
# - finish (no worker or dispatcher waiting for good: timeout -s KILL),
# - issue every op, each thread's in order, each with its original outcome,
# - keep the cross-thread order the replay promises (stress_check.py: per fd, path and
#   directory, an op after the structural op before it, a structural op after the uses
#   since, in the result's start and end times).
# STRESS_SEEDS overrides the seeds (hunting for bugs: many more, one at a time).
source "$(dirname "$0")/lib.sh"

# Left out of the traces (stress_gen.py --avoid), each a limitation of the replay today:
# - rmdir_listed_unnamed: getdents64 on a directory's fd is ordered before another thread's
#   rmdir of it (and after, where it fails) by the directory's name the op carries, or else
#   the one the fd was opened by: not through an fd opened by a name the directory has left;
# - unknown_dir, file_then_dir, mkdir_eexist_file: the file-set scan prepares a directory
#   that was there as a file when no op names anything below it nor tells it is one (only
#   stat'd, then renamed or removed); prepares a directory where a file was (there before,
#   or first opened with O_CREAT without O_EXCL) when a directory made there later holds
#   paths; takes a name whose first op is a failed mkdir (EEXIST) for a directory.
AVOID=rmdir_listed_unnamed,unknown_dir,file_then_dir,mkdir_eexist_file
# 2043: reads of bytes another process added, through fds whose ops carry no path; 2053:
# files in a directory renamed before they are used
SEEDS=${STRESS_SEEDS:-"1 3 5 9 11 17 24 30 34 37 48 53 2043 2053"}

n=0
for seed in $SEEDS; do
	python3 "$HERE/stress_gen.py" "$seed" --avoid=$AVOID >"$T/t.spec" || fail "stress_gen $seed"
	mk t <"$T/t.spec"
	seg=$((seed % 2 ? 16 : 64)),1
	for mode in afap afap-cut think original; do
		rm -rf "$T/tgt"
		case $mode in
		afap) env=() opts=(--timing afap) ;;
		afap-cut) env=(IOREEL_TEST_SEGMENT=$seg) opts=(--timing afap) ;;
		*) env=() opts=(--timing $mode --speed 1000) ;;
		esac
		what="seed $seed, $mode${env[*]:+ (${env[*]})}: $(head -1 "$T/t.spec")"
		env "${env[@]}" timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" \
			"${opts[@]}" -o "$T/r.reel" >"$T/out" 2>&1 ||
			fail "$what: replay status $? (137: hung): $(tail -5 "$T/out")"
		grep -q "outcomes differing from the original: 0" "$T/out" &&
			grep -q "ops not replayed: 0" "$T/out" || {
			cat "$T/out" >&2
			python3 "$HERE/stress_check.py" "$T/t.reel" "$T/r.reel" >&2
			fail "$what: an outcome differs"
		}
		check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
		python3 "$HERE/stress_check.py" "$T/t.reel" "$T/r.reel" >"$T/check" || {
			cat "$T/check" >&2
			fail "$what: cross-thread order broken"
		}
		n=$((n + 1))
	done
	echo "seed $seed: $(head -1 "$T/t.spec" | cut -c15-); $(head -1 "$T/check")"
done
echo "PASS ($n replays)"
