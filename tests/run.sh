#!/bin/bash
# The test command: sets everything up (packages, build) and runs every test with ctest.
#   bash tests/run.sh            # every test but the long benchmarks (bench-long), BPF ones
#                                # when root
#   bash tests/run.sh -L unit    # extra arguments go to ctest instead
set -e
cd "$(dirname "$0")/.."
source tests/setup-deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
cd "$BUILD"
# with no arguments, all but the long benchmarks (~8 min and more each, run on purpose)
[ $# -gt 0 ] || set -- -LE bench-long
ctest --output-on-failure --timeout 900 "$@"
