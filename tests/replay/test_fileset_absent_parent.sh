#!/bin/bash
# A name a lookup found absent (ENOENT) had its directory there, unless the trace tells
# otherwise: that directory is prepared, the name is not. fio stats /tmp/fio-dump-status
# every run; with no <target>/tmp the replayed stat failed one component earlier, a slower
# path through the kernel (1.5-3x the original's stat). The cases where the trace shows the
# directory missing, or its being there would change an outcome, are left unprepared.
source "$(dirname "$0")/lib.sh"

# fio: a job file read, the status file looked for between reads
cat >"$T/fio.spec" <<'SPEC'
1 1 0 1 openat path=/data/job.0.0 flags=O_RDONLY ret=3
1 1 10 11 stat path=/tmp/fio-dump-status ret=-ENOENT
1 1 20 21 pread64 fd=3 off=0 len=4096 ret=4096
1 1 30 31 stat path=/tmp/fio-dump-status ret=-ENOENT
1 1 40 41 pread64 fd=3 off=4096 len=4096 ret=4096
1 1 50 51 newfstatat fd=-100 path=/tmp/fio-dump-status ret=-ENOENT
1 1 60 61 close fd=3 ret=0
SPEC
mk fio <"$T/fio.spec"
{ cat "$T/fio.spec"; cat; } <<'SPEC' | mk t
# deeper: the parent and what is above it
1 1 100 101 access path=/cfg/app/conf.d/override mode=0 ret=-ENOENT
# an op on the directory itself failed with ENOENT: it was missing then
1 1 200 201 stat path=/m1 ret=-ENOENT
1 1 202 203 stat path=/m1/f ret=-ENOENT
# so for a directory above it
1 1 210 211 stat path=/m2 ret=-ENOENT
1 1 212 213 stat path=/m2/sub/f ret=-ENOENT
# the application makes the directory later: not there before (its mkdir must succeed)
1 1 220 221 stat path=/m3/f ret=-ENOENT
1 1 222 223 mkdir path=/m3 mode=0755 ret=0
# making a name in it failed with ENOENT: the directory was missing then
1 1 230 231 openat path=/m4/new flags=O_WRONLY|O_CREAT mode=0644 ret=-ENOENT
1 1 232 233 stat path=/m4/other ret=-ENOENT
# the directory above was removed, after (a prepared m5/sub would make the rmdir fail
# ENOTEMPTY) or before (m6/sub, if anything, is the application's)
1 1 240 241 stat path=/m5/sub/f ret=-ENOENT
1 1 242 243 rmdir path=/m5 ret=0
1 1 250 251 rmdir path=/m6 ret=0
1 1 252 253 stat path=/m6/sub/f ret=-ENOENT
SPEC
replay_as_traced original "a failing lookup under a prepared directory did not fail as traced"
m="$T/tgt/.ioreel-prepared"
has() { grep -qx -- "$1" "$m" || fail "manifest lacks '$1': $(cat "$m")"; }
hasnt() { ! grep -q -- "$1" "$m" || fail "manifest has '$1': $(cat "$m")"; }
has "d tmp"
hasnt "tmp/fio-dump-status"
[ -d "$T/tgt/tmp" ] || fail "no tmp/ in the target"
[ ! -e "$T/tgt/tmp/fio-dump-status" ] || fail "tmp/fio-dump-status made"
has "d cfg"
has "d cfg/app"
has "d cfg/app/conf.d"
hasnt "conf.d/override"
hasnt " m1"
hasnt " m2"
[ -d "$T/tgt/m3" ] || fail "the replay's mkdir of m3 did not run"
hasnt " m3"
hasnt " m4"
has "d m5"
hasnt "m5/sub"
has "d m6"
hasnt "m6/sub"
# the replay's stats failed at the last component, as the original's: ENOENT on a name in
# tmp/ (the result has all three)
n=$("$IOREEL" dump --format jsonl "$T/r.reel" | grep -c '"path":"/tmp/fio-dump-status"')
[ "$n" = 3 ] || fail "want 3 lookups of /tmp/fio-dump-status replayed, got $n"

# a target prepared so is reused while tmp/ is there, and prepared again when it is not,
# or when its manifest lacks it (one prepared before tmp/ was)
run() { "$IOREEL" replay "$T/fio.reel" --target "$T/tgt" -o "$T/r.reel" -q 2>"$T/err"; }
rm -rf "$T/tgt" && run || fail "replay: $(cat "$T/err")"
run || fail "replay 2: $(cat "$T/err")"
grep -q "reusing prepared file set" "$T/err" || fail "the prepared set was not reused: $(cat "$T/err")"
rmdir "$T/tgt/tmp"
run || fail "replay 3: $(cat "$T/err")"
! grep -q reusing "$T/err" || fail "reused a target without tmp/"
[ -d "$T/tgt/tmp" ] || fail "tmp/ not prepared again"
sed -i '/^d tmp$/d' "$m"
run || fail "replay 4: $(cat "$T/err")"
! grep -q reusing "$T/err" || fail "reused a target whose manifest lacks tmp/"
has "d tmp"
echo PASS
