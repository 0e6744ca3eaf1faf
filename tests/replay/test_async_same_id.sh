#!/bin/bash
# Several async requests of one id (io_uring user_data, libaio aio_data) in flight at once,
# each with its own completion record: each record takes its own request (FORMAT.md: the one
# submitted when the record starts, a recorder's completion starting at its submission;
# else the oldest). The replay kept one request per id, the latest: of 4 reads submitted
# with user_data 0 in one io_uring_enter, 3 completion records found none ("completion of a
# request the replay did not submit": 120 of 160 ops not replayed here, 75 % of the I/O
# time). Both engines, every timing:
#  - 20 rounds of 4 reads of id 0 in one submit, completed 100, 200, 300, 400 us later: every
#    op replayed, each round's 4 completions its 4 requests (their offsets);
#  - two reads of id 7 submitted 50 us apart, the later completed first: the first record
#    takes the later request (its offset), the second the earlier;
#  - an strace import of fio's libaio with aio_data 0 (completions start when io_getevents
#    went in, not at their submission: the oldest first).
source "$(dirname "$0")/lib.sh"

python3 - >"$T/spec" <<'PY'
print("100 100 0 1 openat path=/d/a flags=O_RDONLY ret=3")
t = 100
for kind, sub in (("uring", 22), ("aio", 0)):
    for rnd in range(20):
        for j in range(4):
            print(f"100 100 {t} {t} {kind}_submit fd=3 ctx=0x77 aux=0 subop={sub} "
                  f"off={(rnd * 4 + j) * 4096} len=4096 ret=4")
        for j in range(4):
            print(f"100 100 {t} {t + 100 * (j + 1)} {kind}_complete fd=3 ctx=0x77 aux=0 "
                  f"subop={sub} off={(rnd * 4 + j) * 4096} len=4096 ret=4096")
        t += 1000
    # id 7: A at t, B at t + 50; B completes first (at t + 100), A at t + 300
    print(f"100 100 {t} {t} {kind}_submit fd=3 ctx=0x77 aux=7 subop={sub} off=409600 "
          "len=4096 ret=1")
    print(f"100 100 {t + 50} {t + 50} {kind}_submit fd=3 ctx=0x77 aux=7 subop={sub} "
          "off=413696 len=4096 ret=1")
    print(f"100 100 {t + 50} {t + 100} {kind}_complete fd=3 ctx=0x77 aux=7 subop={sub} "
          "off=413696 len=4096 ret=4096")
    print(f"100 100 {t} {t + 300} {kind}_complete fd=3 ctx=0x77 aux=7 subop={sub} "
          "off=409600 len=4096 ret=4096")
    t += 1000
print(f"100 100 {t} {t + 1} close fd=3 ret=0")
PY
mk t <"$T/spec"

# check RESULT WHAT: each round's completions took its requests; id 7's, in the record's order
check_pairs() {
	"$IOREEL" dump --format jsonl "$1" | python3 -c '
import json, sys
from collections import defaultdict
ops = [json.loads(l) for l in sys.stdin]
bad = []
for kind in ("uring", "aio"):
    comp = [o for o in ops if o["op"] == kind + "_complete"]
    rounds = defaultdict(list)
    for o in comp:
        if o["aux"] == 0:
            rounds[o["offset"] // 16384].append(o["offset"])
    if len(rounds) != 20:
        bad.append((kind, "rounds", len(rounds)))
    for r, offs in rounds.items():
        if sorted(offs) != [r * 16384 + j * 4096 for j in range(4)]:
            bad.append((kind, "round", r, offs))
    seven = [o["offset"] for o in comp if o["aux"] == 7]
    if seven != [413696, 409600]:
        bad.append((kind, "id 7", seven))
if bad:
    sys.exit("%s: completions not paired with their own requests: %s" % (sys.argv[1], bad[:4]))
' "$2" || fail "$2"
}
for e in sync io_uring libaio; do
	for timing in original think afap; do
		rm -rf "$T/tgt"
		"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --engine $e --timing $timing \
			-o "$T/r.reel" >"$T/out" 2>&1 || fail "replay, $e $timing: $(cat "$T/out")"
		grep -q "outcomes differing from the original: 0" "$T/out" &&
			grep -q "ops not replayed: 0" "$T/out" ||
			fail "$e $timing: an op lost or differing: $(grep -A4 'differing\|not replayed' "$T/out")"
		check_same_ops "$T/t.reel" "$T/r.reel" >/dev/null
		check_pairs "$T/r.reel" "$e $timing"
	done
done

# an strace import: fio's libaio, iodepth 4, aio_data 0 in every iocb, reaped 2 at a time
iocb() { # opcode offset
	printf '{aio_data=0, aio_lio_opcode=%s, aio_fildes=3</d/b>, aio_buf=0x1000, aio_nbytes=4096, aio_offset=%s}' "$@"
}
ev() { printf '{data=0, obj=%s, res=4096, res2=0}' "$1"; }
{
	echo '300  1700000000.000000 openat(AT_FDCWD, "/d/b", O_RDONLY|O_DIRECT) = 3</d/b> <0.000010>'
	echo '300  1700000000.000100 io_setup(8, [0x7f1000000000]) = 0 <0.000010>'
	for i in 0 1 2 3 4; do
		s=$((1000 + i * 3000))
		echo "300  1700000000.$(printf %06d $s) io_submit(0x7f1000000000, 4, [$(iocb IOCB_CMD_PREAD $((i * 16384))), $(iocb IOCB_CMD_PREAD $((i * 16384 + 4096))), $(iocb IOCB_CMD_PREAD $((i * 16384 + 8192))), $(iocb IOCB_CMD_PREAD $((i * 16384 + 12288)))]) = 4 <0.000020>"
		echo "300  1700000000.$(printf %06d $((s + 100))) io_getevents(0x7f1000000000, 2, 4, [$(ev 0x5000), $(ev 0x5040)], NULL) = 2 <0.000500>"
		echo "300  1700000000.$(printf %06d $((s + 700))) io_getevents(0x7f1000000000, 2, 4, [$(ev 0x5080), $(ev 0x50c0)], NULL) = 2 <0.000500>"
	done
} >"$T/b.strace"
"$IOREEL" import strace "$T/b.strace" -o "$T/b.reel" 2>"$T/import.err" ||
	fail "import: $(cat "$T/import.err")"
for e in sync libaio; do
	rm -rf "$T/tgt"
	"$IOREEL" replay "$T/b.reel" --target "$T/tgt" --engine $e -o "$T/rb.reel" >"$T/out" 2>&1 ||
		fail "replay of the import, $e: $(cat "$T/out")"
	grep -q "outcomes differing from the original: 0" "$T/out" &&
		grep -q "ops not replayed: 0" "$T/out" ||
		fail "import, $e: an op lost or differing: $(grep -A4 'differing\|not replayed' "$T/out")"
	check_same_ops "$T/b.reel" "$T/rb.reel" >/dev/null
done
echo PASS
