#!/bin/bash
# A mistake on "ioreel replay"'s command line (an unknown option, no --target) exits 2 with
# the mistake, the usage line and where the options are: a few lines, not the 80 of --help,
# which scrolled the one that said what was wrong off the screen.
source "$(dirname "$0")/lib.sh"

for args in "t.reel --taget $T/x" "t.reel"; do
	# shellcheck disable=SC2086
	"$IOREEL" replay $args >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 2 ] || fail "replay $args exited $rc, want 2"
	[ ! -s "$T/out" ] || fail "replay $args wrote to stdout: $(cat "$T/out")"
	n=$(wc -l <"$T/err")
	[ "$n" -le 4 ] || fail "replay $args: $n lines on stderr, want the mistake and the usage line"
	grep -q "^usage: ioreel replay TRACE --target DIR" "$T/err" || fail "replay $args: no usage line"
	grep -q "replay --help" "$T/err" || fail "replay $args: no word of --help"
done
grep -q "taget" <("$IOREEL" replay t.reel --taget x 2>&1) || fail "the unknown option is not named"
"$IOREEL" replay --help | grep -q -- "--timing MODE" || fail "--help lost its options"
echo PASS
