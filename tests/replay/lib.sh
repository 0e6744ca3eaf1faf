# Sourced by the replay tests: scratch dir, trace making, result checks.
set -u
IOREEL=${IOREEL:-build/ioreel}
MKTRACE=${MKTRACE:-build/tests/replay/replay_mktrace}
GEN_TRACE=${GEN_TRACE:-build/tests/bench_replay/gen_trace} # large synthetic traces
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PYTHONPATH=$HERE${PYTHONPATH:+:$PYTHONPATH} # spec.py: trace specs from python
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

# replay_as_traced MODE WHAT: replays $T/t.reel afresh into $T/tgt with --timing MODE and
# fails unless every op ended as in the trace and the result has the trace's ops; WHAT names
# the case and what an outcome that differs means (the order tests' common part). A replay
# that hangs (an order waiting for what never comes) is killed after a minute.
replay_as_traced() {
	rm -rf "$T/tgt"
	timeout -s KILL 60 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" --timing "$1" \
		-o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay, timing $1: status $? (137: hung): $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		grep -A8 "outcomes differing" "$T/out"
		fail "timing $1: $2"
	}
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
}

# check_size FILE WANT WHAT: fails unless FILE (in the target) is WANT bytes long
check_size() {
	local sz
	sz=$(stat -c %s "$1") || fail "$3: no $1"
	[ "$sz" = "$2" ] || fail "$3: $1 ends $sz bytes long, want $2"
}

# check_wl_files_replay TRACE: replays a recording of wl_files.py run on $T/app/data and
# checks it end to end: in.bin prepared as large as the furthest byte read, out.bin written
# and renamed into place, every op with its original outcome, the same ops per thread on the
# app's files, all 60 preads of in.bin, and nothing of the pipe or /proc.
check_wl_files_replay() {
	local src="$T/tgt${T}/app/data" sz n
	"$IOREEL" replay "$1" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay: $(cat "$T/out")"
	[ -f "$src/in.bin" ] || fail "in.bin not prepared"
	sz=$(stat -c %s "$src/in.bin")
	# furthest byte read: (59 * 4096) + 4096
	[ "$sz" = 245760 ] || fail "in.bin prepared with $sz bytes, want 245760"
	[ "$(stat -c %s "$src/out.bin")" = 10000 ] || fail "out.bin not written and renamed"
	[ ! -e "$src/out.tmp" ] || fail "out.tmp left behind"
	grep -q "outcomes differing from the original: 0" "$T/out" || {
		cat "$T/out"
		fail "outcomes differ"
	}
	check_same_ops "$1" "$T/r.reel" --prefix "$T/app/"
	n=$("$IOREEL" dump --format jsonl "$T/r.reel" | grep -c "\"path\":\"$T/app/data/in.bin\".*\"op\":\"pread64\"\|\"op\":\"pread64\".*\"path\":\"$T/app/data/in.bin\"")
	[ "$n" = 60 ] || fail "want 60 preads of in.bin replayed, got $n"
	! "$IOREEL" dump "$T/r.reel" | grep -q "/proc" || fail "/proc replayed"
}

# count_big_buffers E: replays $T/t.reel afresh as fast as possible with --engine E, as the
# trace ran, and prints how many 1 MiB buffers it allocated (the count_memalign shim)
count_big_buffers() {
	rm -rf "$T/tgt" "$T/count"
	COUNT_MEMALIGN_OUT=$T/count LD_PRELOAD=$COUNT_MEMALIGN "$IOREEL" replay "$T/t.reel" \
		--target "$T/tgt" --engine "$1" --timing afap -o "$T/r.reel" >"$T/out" 2>&1 ||
		fail "replay, engine $1: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" ||
		fail "engine $1: outcomes differ: $(cat "$T/out")"
	check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
	[ -s "$T/count" ] || fail "engine $1: the shim counted nothing (not loaded?)"
	cat "$T/count"
}
