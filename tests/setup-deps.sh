#!/bin/bash
# Installs the Debian packages ioreel builds and tests with, when missing (root only),
# and mounts tracefs when it is not mounted (syscall tracepoints need it).
# Sourced by tests/run.sh and samples/demo.sh; safe to run again.
set -e
IOREEL_DEBS="cmake make gcc clang llvm pkg-config libbpf-dev liburing-dev libaio-dev libzstd-dev
bpftool strace fio sqlite3 postgresql postgresql-contrib rocksdb-tools chromium linux-perf time"
missing=""
for p in $IOREEL_DEBS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "ioreel: missing Debian packages:$missing (run as root to install them)" >&2
		exit 1
	fi
	echo "ioreel: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ "$(id -u)" = 0 ] && [ ! -e /sys/kernel/tracing/events ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
fi
