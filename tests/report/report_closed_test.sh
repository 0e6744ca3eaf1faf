#!/bin/bash
# report_closed_test.sh IOREEL MKTRACE - an original that issued its ops back to back (a
# closed loop: report_mktrace ... closed), replayed with original timing on storage 4x
# slower at fsync: the report says the pace was not kept AND that the original was a closed
# loop, pointing to --timing think.
# Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib.sh"
report_setup closed "$@"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

"$MKTRACE" "$T" 300 closed >/dev/null || fail "report_mktrace"
"$IOREEL" report "$T/orig.reel" "$T/slow.reel" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
cat "$T/out"
grep -q "could not keep its original pace" "$T/out" || fail "no pace verdict"
grep -Eq "the original issued its ops back to back \(9[0-9]% began .*--timing think" "$T/out" ||
	fail "no closed-loop hint beside the pace verdict"
"$IOREEL" report --json "$T/orig.reel" "$T/slow.reel" >"$T/json" || fail "report --json"
python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
notes = [v["text"] for v in doc["verdict"] if "back to back" in v["text"]]
sys.exit(0 if len(notes) == 1 else 1)' "$T/json" || fail "JSON: not exactly one closed-loop verdict"
echo PASS
