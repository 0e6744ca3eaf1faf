#!/bin/bash
# sync(2) is recorded as a syncfs with no fd (fd -1): every file system's sync. It replays as
# a syncfs of each target's file system (each once), the storage the replay measures, and
# never of the others. Kyoto Cabinet's directory database (kcdirtest tran -hard) makes its
# transactions durable with sync(): 20 calls, 50 ms of a run whose recorded I/O took 62 ms,
# were missing from the trace. Before the replay knew them, such an op was "not replayed:
# unknown fd".
source "$(dirname "$0")/lib.sh"

{
	echo "1 1 0 10 openat path=/d/f flags=O_WRONLY|O_CREAT mode=0644 ret=3"
	echo "1 1 20 30 pwrite64 fd=3 path=/d/f off=0 len=65536 ret=65536"
	echo "1 1 40 500 syncfs fd=-1 ret=0"
	echo "1 1 600 610 close fd=3 path=/d/f ret=0"
} | mk t
for mode in original afap; do
	replay_as_traced $mode "sync(2) ended otherwise than traced"
	grep -q "ops not replayed: 0" "$T/out" || fail "timing $mode: $(grep -A3 'not replayed' "$T/out")"
	n=$("$IOREEL" dump --format jsonl "$T/r.reel" |
		grep -c '"op":"syncfs".*"fd":-1.*"ret":0,')
	[ "$n" = 1 ] || fail "timing $mode: want the syncfs with no fd replayed once with ret 0, got $n"
done
# two targets on one file system (a --map rule beside the target): synced once, and it works
mkdir -p "$T/tgt2"
rm -rf "$T/tgt"
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" --map "/d=$T/tgt2/d" -o "$T/r.reel" >"$T/out" 2>&1 ||
	fail "replay with --map: $(cat "$T/out")"
grep -q "outcomes differing from the original: 0" "$T/out" || fail "with --map: $(cat "$T/out")"
echo PASS
