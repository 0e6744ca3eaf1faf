#!/bin/bash
# The test command: sets everything up (packages, build) and runs every test with ctest.
#   bash tests/run.sh            # all tests, including BPF ones when root
#   bash tests/run.sh -L unit    # extra arguments go to ctest
set -e
cd "$(dirname "$0")/.."
source tests/setup-deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
cd "$BUILD"
ctest --output-on-failure --timeout 900 "$@"
