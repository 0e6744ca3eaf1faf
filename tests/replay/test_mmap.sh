#!/bin/bash
# mmap and msync are replayed: each mmap maps the replay fd's region with the original's prot
# and flags (MAP_FIXED and the address dropped), an msync of an original address anywhere
# inside a mapping (made by any thread of the same process) lands on the replay's mapping at
# the same offset, another process's msync of that address fails as it did (ENOMEM), and every
# mapping is unmapped by the end. Checked on the syscalls themselves (strace) and the result.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || exit 77

mk t <<'SPEC'
100 100 0 10 openat path=/srv/app/db flags=O_RDWR ret=3
100 100 100 150 pwrite64 fd=3 off=4096 len=4096 ret=4096
100 100 200 250 mmap fd=3 off=0 len=65536 flags=1 mode=3 aux=0 ret=0x7f0000000000
100 100 300 400 msync aux=0x7f0000001000 len=4096 flags=4 ret=0
100 101 500 510 mmap fd=3 off=8192 len=8192 flags=0x12 mode=1 aux=0x7f0000100000 ret=0x7f0000100000
100 101 600 700 msync aux=0x7f0000101000 len=4096 flags=1 ret=0
100 101 800 900 msync aux=0x7f000000f000 len=4096 flags=4 ret=0
200 200 1000 1010 msync aux=0x7f0000001000 len=4096 flags=4 ret=-ENOMEM
100 100 1100 1110 close fd=3 ret=0
SPEC
# LeakSanitizer cannot run under ptrace: the leak check is the second replay's, below
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -ff -qq -e trace=mmap,msync,munmap -e signal=none -o "$T/st" \
	"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" > "$T/out" 2>&1 || {
	cat "$T/out"
	fail "replay failed"
}
cat "$T"/st.* > "$T/st" # one file per thread: no call split by another's
check_same_ops "$T/t.reel" "$T/r.reel"
grep -q "outcomes differing from the original: 0" "$T/out" || { cat "$T/out"; fail "outcomes differ"; }
grep -q "ops not replayed: 0" "$T/out" || { head -30 "$T/out"; fail "ops not replayed"; }
grep -Eq '^ *mmap ' "$T/out" && grep -Eq '^ *msync ' "$T/out" ||
	{ cat "$T/out"; fail "summary has no mmap/msync rows"; }
"$IOREEL" dump --format jsonl "$T/r.reel" > "$T/r.jsonl" || fail "dump"
python3 - "$T/r.jsonl" "$T/st" <<'PY' || fail "mmap/msync not replayed faithfully"
import json, re, sys
ops = [json.loads(l) for l in open(sys.argv[1])]
mm = [o for o in ops if o["op"] == "mmap"]
ms = [o for o in ops if o["op"] == "msync"]
assert len(mm) == 2 and len(ms) == 4, (len(mm), len(ms))
a1, a2 = (next(o["ret"] for o in mm if o["len"] == n) for n in (65536, 8192))
assert a1 > 0 and a2 > 0 and a1 % 4096 == 0 and a1 != 0x7f0000000000, (a1, a2)
byaux = {(o["pid"], o["aux"]): o["ret"] for o in ms}
assert byaux[(100, 0x7f0000001000)] == 0 and byaux[(100, 0x7f0000101000)] == 0
assert byaux[(100, 0x7f000000f000)] == 0
assert byaux[(200, 0x7f0000001000)] < 0, byaux
st = open(sys.argv[2]).read()
# the replay's own syscalls: no MAP_FIXED, no address; msync at mapping + offset (their
# results are also the result trace's, checked above)
assert re.search(r"mmap\(NULL, 65536, PROT_READ\|PROT_WRITE, MAP_SHARED, \d+, 0\) = %#x" % a1, st), "mmap 1"
assert re.search(r"mmap\(NULL, 8192, PROT_READ, MAP_PRIVATE, \d+, 0x2000\) = %#x" % a2, st), "mmap 2"
for addr, flag in ((a1 + 0x1000, "MS_SYNC"), (a2 + 0x1000, "MS_ASYNC"), (a1 + 0xf000, "MS_SYNC")):
    assert re.search(r"msync\(%#x, 4096, %s" % (addr, flag), st), hex(addr)
assert re.search(r"msync\(NULL, 4096, MS_SYNC", st), "pid 200's msync"
for a, n in ((a1, 65536), (a2, 8192)):
    assert re.search(r"munmap\(%#x, %d\)" % (a, n), st), "not unmapped: %#x" % a
PY

# an msync of an address the replay never mapped (mapped before the capture) is named, not issued
mk u <<'SPEC'
100 100 0 10 msync aux=0x7f0000001000 len=4096 flags=4 ret=0
SPEC
"$IOREEL" replay "$T/u.reel" --target "$T/tgt2" -o "$T/r2.reel" > "$T/out2" 2>&1 || fail "replay 2"
grep -q "1 not replayed: unknown fd" "$T/out2" || { cat "$T/out2"; fail "unknown mapping not counted"; }
grep -q "address not mapped in the replay" "$T/out2" || { cat "$T/out2"; fail "unknown mapping not named"; }
echo ok
