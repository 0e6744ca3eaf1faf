#!/bin/bash
# A trace whose one path has id 0xfffffff0 (the format lets a chunk start its ids anywhere
# below 2^32; report_pathid writes one): the file-set scan doubled its table size in 32
# bits until it passed the id, which it never did past 2^31, and replay spun forever.
# It must finish, whatever it makes of such a trace.
source "$(dirname "$0")/lib.sh"

"$PATHID" "$T/t.reel" || fail "report_pathid"
timeout -s KILL 20 "$IOREEL" replay "$T/t.reel" --target "$T/tgt" -T afap -q -o "$T/r.reel" \
	>"$T/out" 2>&1
rc=$?
# SIGKILL: replay takes SIGTERM for a request to stop between ops
[ "$rc" != 137 ] || fail "replay still running after 20 s"
[ "$rc" -lt 128 ] || fail "replay died of signal $((rc - 128)): $(cat "$T/out")"
echo PASS
