#!/bin/bash
# The main job on the shipped sample, from a fresh clone:
#   bash samples/demo.sh
# installs what is missing (root), builds, then replays the PostgreSQL/pgbench sample
# against a RAM disk (tmpfs under /dev/shm) and a disk directory (ext4 under /var/tmp)
# and prints the side-by-side report. An HTML page with CDF plots and a timeline goes to out/.
#   TRACE=samples/sqlite/sqlite.reel bash samples/demo.sh   # another sample
set -e
cd "$(dirname "$0")/.."
source tests/setup-deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)" >/dev/null
IOREEL="$BUILD/ioreel"
TRACE=${TRACE:-samples/postgres/pgbench.reel}
RAM=${RAM:-/dev/shm/ioreel-demo}
DISK=${DISK:-/var/tmp/ioreel-demo}
mkdir -p out "$RAM" "$DISK"

echo "== the trace: $TRACE"
"$IOREEL" info "$TRACE"
echo
echo "== replaying on $RAM (tmpfs) and $DISK (ext4), original timing"
"$IOREEL" replay "$TRACE" --target "$RAM" --target "$DISK" --timing original -o out/demo
"$IOREEL" report "$TRACE" out/demo.0 out/demo.1 --timeline --html out/demo-report.html >/dev/null
echo
echo "HTML report with latency CDF plots and a timeline: out/demo-report.html"
echo "The prepared file sets stay in $RAM (RAM) and $DISK, reused by the next run;"
echo "rm -rf $RAM $DISK frees them."
