# Sourced by the capture tests, whose arguments are IOREEL PRINT [...]: recording needs root
# and the kernel's BTF (else the test is skipped); $dir is a scratch directory, removed at
# exit (a test with more to clean up sets its own trap, removing $dir too).
set -u
IOREEL=$1
PRINT=$2
[ "$(id -u)" = 0 ] && [ -e /sys/kernel/btf/vmlinux ] ||
	{ echo "SKIP: recording needs root and /sys/kernel/btf/vmlinux"; exit 77; }
dir=$(mktemp -d /var/tmp/ioreel-capture.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
