#!/bin/bash
# A damaged chunk of a trace read from a pipe costs that chunk only, as from a file: the
# reader searches for the next chunk from the damaged one's offset + 1, so it must not have
# let go of those bytes while fetching the payload. The chunk damaged here straddles the
# 1 MiB reading window, whose bytes before the payload a pipe cannot read again.
set -u
IOREEL=$1 MKTRACE=$2
dir=$(mktemp -d /dev/shm/ioreel-convert.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$MKTRACE" "$dir/whole.reel" --many 200000 || fail "mktrace"
# flip a payload byte of the ops chunk across byte 1 MiB; print its offset and ops
read -r off nops < <(python3 - "$dir/whole.reel" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
pos = 16
while pos < len(d) - 16:
    csize, _, nops = struct.unpack_from("<III", d, pos + 8)
    if d[pos + 4] == 2 and pos + 32 < (1 << 20) < pos + 32 + csize:
        d[pos + 32 + csize // 2] ^= 0xFF
        open(p, "wb").write(d)
        print(pos, nops)
        break
    pos += 32 + csize
PY
)
[ -n "${off:-}" ] || fail "no ops chunk across 1 MiB"
want=$((200000 - nops))
for i in 1 2 3; do
	out=$(cat "$dir/whole.reel" | "$IOREEL" info /dev/stdin 2>&1)
	grep -q "^ops  *$want\$" <<< "$out" || fail "info from a pipe: want $want ops: $out"
	grep -q "at byte $off: trace chunk checksum mismatch: skipped $nops ops\$" <<< "$out" ||
		fail "info from a pipe: want the damage at byte $off to cost $nops ops: $out"
	got=$(cat "$dir/whole.reel" | "$IOREEL" dump --format jsonl /dev/stdin 2>/dev/null | wc -l)
	[ "$got" = "$want" ] || fail "dump from a pipe: $got ops, want $want"
done
echo PASS
