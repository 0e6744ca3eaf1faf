#!/bin/bash
# Misuse gets one line and exit status 2, before any work: "report T R --timeline 1s" (the
# interval went apart from its option and was read as a trace: "failed to report on 1s"),
# "report --html" into a missing directory (it printed the whole report first), and info
# with no TRACE or two (it printed its whole usage page).
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
"$MKTRACE" "$dir/t.reel" || { echo "FAIL: mktrace"; exit 1; }
fail=0
# one_line WANT_REGEX CMD...: exit 2, nothing on stdout, one line on stderr matching
one_line() {
	local want=$1 rc
	shift
	"$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ $rc != 2 ] || [ -s "$dir/out" ] || [ "$(wc -l <"$dir/err")" != 1 ] ||
		! grep -Eq "$want" "$dir/err"; then
		echo "FAIL: $*: exit $rc, stdout $(wc -c <"$dir/out") bytes, stderr:"
		cat "$dir/err"
		fail=1
	fi
}
one_line "^ioreel: failed to parse arguments: '1s' is no file; an interval goes after --timeline's '=' \(--timeline=1s\)$" \
	"$IOREEL" report "$dir/t.reel" --timeline 1s
one_line "^ioreel: cannot write HTML page $dir/no/x.html: No such file or directory$" \
	"$IOREEL" report "$dir/t.reel" --html "$dir/no/x.html"
one_line "^ioreel: cannot write HTML page $dir: it is a directory$" \
	"$IOREEL" report "$dir/t.reel" --html "$dir"
one_line "^ioreel: failed to parse arguments: more than one TRACE" "$IOREEL" info "$dir/t.reel" x
one_line "^ioreel: failed to parse arguments: no TRACE given" "$IOREEL" info --json
[ $fail = 0 ] && echo PASS
exit $fail
