#!/bin/bash
# The op types of format 1.1 never reach outside the target: link, symlink, readlink, chmod,
# chown, utimensat and a copy's lazily opened destination, given ".." paths or going through
# symlinks planted in the target (a directory leading out, absolute or relative, and a last
# component leading to an outside file: chmod, chown, utimensat and linkat AT_SYMLINK_FOLLOW
# follow it), are refused with the message the other path ops give; the outside file keeps
# its data, mode, owner, times and link count, and nothing is made outside. What stays
# inside replays: link without AT_SYMLINK_FOLLOW links the planted symlink itself, lchown
# changes the symlink, and a symlink whose content leads out is made (following it is what
# is refused).
source "$(dirname "$0")/lib.sh"

mkdir -p "$T/outside"
echo canary >"$T/outside/f"
chmod 0644 "$T/outside/f"
touch -d '2001-01-01 00:00:00' "$T/outside/f"
up=../../../../../../../..
mk t <<SPEC
100 100 0 10 stat path=/d/a ret=0
100 100 100 110 link path=/d/a path2=/d/$up$T/outside/l ret=0
100 100 110 120 link path=/d/$up$T/outside/f path2=/d/l2 ret=0
100 100 120 130 symlink path=/d/$up$T/outside/s path2=x ret=0
100 100 130 140 chmod path=/d/$up$T/outside/f mode=0777 ret=0
100 100 140 150 chown path=/d/$up$T/outside/f aux=1234 ctx=1234 ret=0
100 100 150 160 readlink path=/d/$up$T/outside/f len=100 ret=-EINVAL
100 100 160 170 utimensat fd=-100 path=/d/$up$T/outside/f ret=0
100 100 170 180 symlink path=/d/out path2=$up$T/outside/f ret=0
100 101 1500000 1500010 chmod path=/d/lnk mode=0777 ret=0
100 101 1500010 1500020 chown path=/d/lnk aux=1234 ctx=1234 ret=0
100 101 1500020 1500030 utimensat fd=-100 path=/d/lnk ret=0
100 101 1500030 1500040 fchmodat fd=-100 path=/d/abs/f mode=0777 ret=0
100 101 1500040 1500050 linkat fd=-100 fd2=-100 path=/d/lnk path2=/d/hard flags=0x400 ret=0
100 101 1500050 1500060 symlink path=/d/abs/s2 path2=x ret=0
100 101 1500060 1500070 symlinkat fd=-100 path=/d/rel/s3 path2=x ret=0
100 101 1500070 1500080 readlink path=/d/abs/f len=100 ret=-EINVAL
100 101 1500080 1500090 link path=/d/rel/f path2=/d/hard3 ret=0
100 101 1500090 1500100 chmod path=/d/out mode=0777 ret=0
100 101 1500100 1500110 openat path=/d/a flags=O_RDONLY ret=3
100 101 1500110 1500120 copy_file_range fd=3 fd2=7 path=/d/a path2=/d/abs/f off=0 len=4 aux=0 ret=4
100 101 1500120 1500130 link path=/d/lnk path2=/d/hard2 ret=0
100 101 1500130 1500140 lchown path=/d/lnk aux=4321 ctx=4321 ret=0
100 101 1500140 1500150 readlink path=/d/lnk len=4096 ret=${#T}
SPEC
# plant the symlinks once the file set is prepared, before the ops at 1.5 s use them
(
	for _ in $(seq 200); do
		[ -e "$T/tgt/.ioreel-prepared" ] && break
		sleep 0.01
	done
	rm -rf "$T/tgt/d/abs" "$T/tgt/d/rel" "$T/tgt/d/lnk"
	ln -s "$T/outside" "$T/tgt/d/abs"
	ln -s ../../outside "$T/tgt/d/rel"
	ln -s "$T/outside/f" "$T/tgt/d/lnk"
) &
"$IOREEL" replay "$T/t.reel" --target "$T/tgt" -o "$T/r.reel" >"$T/out" 2>"$T/err" ||
	fail "replay failed: $(cat "$T/err")"
wait
# readlink of lnk returns the length of its content, the planted one's here
[ "$(readlink "$T/tgt/d/lnk")" = "$T/outside/f" ] || fail "symlinks were not planted"

[ "$(cat "$T/outside/f")" = canary ] || fail "outside file's data changed"
[ "$(stat -c %a:%u:%g:%h "$T/outside/f")" = 644:0:0:1 ] ||
	fail "outside file's mode/owner/links changed: $(stat -c %a:%u:%g:%h "$T/outside/f")"
[ "$(date -r "$T/outside/f" +%Y)" = 2001 ] || fail "outside file's times changed"
[ "$(ls -A "$T/outside")" = f ] || fail "made outside: $(ls -A "$T/outside")"
grep -q "escapes the target" "$T/err" || fail "no message about the escapes"
# 7 by "..", 11 through symlinks: the 10 planted ones (the copy's destination among them)
# and the chmod through the one the replay made with the trace's content leading out
n=$(sed -n 's/^ *\([0-9]*\) not replayed: path escapes the target.*/\1/p' "$T/out")
[ "$n" = 18 ] || {
	cat "$T/out"
	fail "want 18 ops refused, got ${n:-none}"
}
# what stays inside replayed, with the original's outcome
[ -L "$T/tgt/d/hard2" ] && [ "$(readlink "$T/tgt/d/hard2")" = "$T/outside/f" ] ||
	fail "link did not link the symlink itself"
[ "$(stat -c %u:%g "$T/tgt/d/lnk")" = 4321:4321 ] || fail "lchown did not change the symlink"
[ "$(readlink "$T/tgt/d/out")" = "$up$T/outside/f" ] || fail "symlink out was not made"
"$IOREEL" dump --format jsonl "$T/r.reel" | python3 -c '
import json, sys
got = [(o["op"], o["ret"]) for o in map(json.loads, sys.stdin)]
want = [("stat", 0), ("symlink", 0), ("openat", None), ("link", 0), ("lchown", 0), ("readlink", None)]
got = [(op, None if op in ("openat", "readlink") else r) for op, r in got]
sys.exit(0 if sorted(got) == sorted(want) else "replayed: %s" % got)
' || fail "the ops inside the target did not replay as they should"
echo PASS
