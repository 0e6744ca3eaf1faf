#!/bin/bash
# O_DIRECT where the target rejects it (ramfs here; tmpfs accepts it since Linux 6.6):
# --direct drop (default) drops the flag, the ops succeed, and the result and summary say
# so (replay.direct_dropped); --direct keep fails those opens, counted and named.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || exit 77
mkdir -p "$T/ram"
mount -t ramfs ramfs "$T/ram" 2>/dev/null || exit 77
trap 'umount "$T/ram"; rm -rf "$T"' EXIT

mk t <<'SPEC'
100 100 0 10 openat path=/d/a flags=O_RDWR|O_DIRECT ret=3
100 100 100 110 pread64 fd=3 off=0 len=4096 ret=4096
100 100 200 210 pwrite64 fd=3 off=4096 len=4096 ret=4096
100 100 300 310 openat path=/d/new flags=O_RDWR|O_CREAT|O_EXCL|O_DIRECT mode=0644 ret=4
100 100 400 410 pwrite64 fd=4 off=0 len=4096 ret=4096
100 100 500 510 close fd=3 ret=0
100 100 600 610 close fd=4 ret=0
SPEC
"$IOREEL" replay "$T/t.reel" --target "$T/ram/tgt" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
grep -q "O_DIRECT rejected by the target and dropped on 2 opens" "$T/out" || {
	cat "$T/out"
	fail "drop not reported"
}
grep -q "outcomes differing from the original: 0" "$T/out" || fail "ops failed with drop"
"$IOREEL" info "$T/r.reel" 2>/dev/null | grep -q "replay.direct_dropped.*2" ||
	"$IOREEL" dump --format jsonl "$T/r.reel" >/dev/null # info may not list meta
python3 - "$T/r.reel" <<'PY' || fail "meta replay.direct_dropped missing"
import subprocess, sys, os
out = subprocess.run([os.environ.get("IOREEL", "build/ioreel"), "info", sys.argv[1]],
                     capture_output=True, text=True).stdout
sys.exit(0 if "direct_dropped" in out and "2" in out.split("direct_dropped", 1)[1][:40] else 1)
PY
"$IOREEL" replay "$T/t.reel" --target "$T/ram/tgt" --direct keep --fresh -o "$T/k.reel" \
	>"$T/out" 2>&1 || fail "replay keep: $(cat "$T/out")"
grep -q "O_DIRECT rejected by the target on 2 opens (--direct keep)" "$T/out" ||
	fail "keep not reported"
grep -q "failed where the original succeeded" "$T/out" || fail "keep failures not counted"
grep -q "openat /d/a.*-EINVAL" "$T/out" || fail "failed open not named"
echo PASS
