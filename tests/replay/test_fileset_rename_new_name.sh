#!/bin/bash
# A rename's new name that no op named before the rename tells what was there: the directory
# it is made in existed (rename(a, d/b), d named by nothing else: prepared as before), and so,
# through a symlink the application made (ln -s v1 cur; mv a cur/b), did the directory the link
# led to; an exchange (renameat2 RENAME_EXCHANGE) needs the new name itself, which then holds
# the old name's file (its reads by the old name after the exchange are the new name's). The
# file set took every rename's new name for one the rename made: v1 and b were not prepared,
# and the renames failed where they had succeeded (-ENOENT).
source "$(dirname "$0")/lib.sh"

# each case: a trace, then the files the replay must find prepared, "path size" each ("d" for
# a directory)
check_case() {
	local name=$1 want=$2 f sz
	mk t
	for timing in original afap; do
		replay_as_traced $timing "$name"
		while read -r f sz; do
			if [ "$sz" = d ]; then
				grep -qx "d r/$f" "$T/tgt/.ioreel-prepared" ||
					fail "$name, $timing: r/$f not prepared as a directory"
			else
				grep -qx "f $sz r/$f" "$T/tgt/.ioreel-prepared" ||
					fail "$name, $timing: r/$f not prepared at $sz bytes"
			fi
		done <<<"$want"
	done
}

check_case "the new name's directory, unnamed" "a 10
d d" <<'SPEC'
1 1 10 11 openat path=/r/a flags=O_RDONLY ret=3
1 1 12 13 pread64 fd=3 off=0 len=10 ret=10
1 1 14 15 close fd=3 ret=0
1 1 20 21 rename path=/r/a path2=/r/d/b ret=0
SPEC

check_case "renamed into a link's directory" "a 10
v1 d" <<'SPEC'
1 1 10 11 openat path=/r/a flags=O_RDONLY ret=3
1 1 12 13 pread64 fd=3 off=0 len=10 ret=10
1 1 14 15 close fd=3 ret=0
1 1 16 17 symlink path=/r/cur path2=v1 ret=0
1 1 20 21 rename path=/r/a path2=/r/cur/b ret=0
SPEC

# flags=2: RENAME_EXCHANGE
check_case "an exchange with a name not named before" "a 10
b 20" <<'SPEC'
1 1 10 11 openat path=/r/a flags=O_RDONLY ret=3
1 1 12 13 pread64 fd=3 off=0 len=10 ret=10
1 1 14 15 close fd=3 ret=0
1 1 20 21 renameat2 fd=-100 fd2=-100 path=/r/a path2=/r/b flags=2 ret=0
1 1 30 31 openat path=/r/a flags=O_RDONLY ret=3
1 1 32 33 pread64 fd=3 off=0 len=20 ret=20
1 1 34 35 close fd=3 ret=0
SPEC
echo PASS
