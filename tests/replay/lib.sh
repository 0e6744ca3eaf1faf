# Sourced by the replay tests: scratch dir, trace making, result checks.
set -u
IOREEL=${IOREEL:-build/ioreel}
MKTRACE=${MKTRACE:-build/tests/replay/replay_mktrace}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d /var/tmp/ioreel-replay-test.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# mk NAME < spec: writes $T/NAME.reel
mk() {
	"$MKTRACE" "$T/$1.reel" || fail "replay_mktrace $1"
}

# same ops, same types, in the same order per (pid, tid); prints the counts
check_same_ops() {
	python3 "$HERE/check_result.py" "$@" || fail "result $2 does not match trace $1"
}
