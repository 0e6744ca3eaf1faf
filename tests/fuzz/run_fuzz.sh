#!/bin/bash
# Short fuzzing run for CI: configures a clang build with -DIOREEL_FUZZ=ON in a scratch
# directory, builds the fuzz targets and runs each for a while, seeded with the golden
# traces and the committed corpus. Longer runs:
#   FUZZ_SECONDS=900 bash tests/fuzz/run_fuzz.sh
# A crash leaves its input in $FUZZ_ARTIFACTS (default: the scratch dir, kept on failure);
# commit it under tests/fuzz/corpus/ once fixed. FUZZ_KEEP=DIR copies the corpora grown by
# the run to DIR (to pick new seeds from).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${FUZZ_SECONDS:-60}
command -v clang >/dev/null || { echo "clang not installed"; exit 77; }
scratch=$(mktemp -d /var/tmp/reelfuzz.XXXXXX)
keep=0
cleanup() { [ "$keep" = 1 ] && echo "kept $scratch" || rm -rf "$scratch"; }
trap cleanup EXIT

CC=clang cmake -S "$src" -B "$scratch/build" -DIOREEL_FUZZ=ON -DBUILD_TESTING=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$scratch/configure.log" 2>&1 ||
	{ cat "$scratch/configure.log"; exit 1; }
cmake --build "$scratch/build" --target fuzz_reader fuzz_ops_payload fuzz_roundtrip -j2 >"$scratch/build.log" 2>&1 ||
	{ tail -50 "$scratch/build.log"; exit 1; }

run() { # target seconds seed-dirs...
	local target=$1 secs=$2
	shift 2
	mkdir -p "$scratch/corpus-$target" "${FUZZ_ARTIFACTS:-$scratch/artifacts}"
	echo "== $target for ${secs}s"
	if ! "$scratch/build/tests/fuzz/$target" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="${FUZZ_ARTIFACTS:-$scratch/artifacts}/" \
		"$scratch/corpus-$target" "$@" >"$scratch/$target.log" 2>&1; then
		tail -60 "$scratch/$target.log"
		keep=1
		exit 1
	fi
	grep -E "^stat::(number_of_executed_units|peak_rss_mb)|Done [0-9]+ runs" "$scratch/$target.log" || true
}

run fuzz_reader "$seconds" "$src/tests/format/golden" "$src/tests/fuzz/corpus"
run fuzz_ops_payload $(( (seconds + 1) / 2 )) "$src/tests/fuzz/seeds-ops"
run fuzz_roundtrip $(( (seconds + 1) / 2 )) "$src/tests/fuzz/seeds-ops"
if [ -n "${FUZZ_KEEP:-}" ]; then
	mkdir -p "$FUZZ_KEEP"
	cp -r "$scratch"/corpus-* "$FUZZ_KEEP"/
fi
