#!/bin/bash
# An unlink of a file the replay still maps is counted (its blocks stay until unmapped, so it
# cost less than an original that had unmapped the file first) only when the trace never
# undoes that mapping: sqlite in WAL mode unlinks its -shm file, then unmaps it 3 us later,
# as its process did in the original, yet every such unlink was counted ("3 unlinks or
# renames over the last name of a file the replay still had mapped (no munmap of it in the
# trace ...)"). Not counted: a munmap of it after the unlink (same process or another that
# mapped it), its process's exit record after; counted: no munmap nor exit (a 1.1 trace), a
# munmap that only cuts the mapping, one of two mappings never undone.
source "$(dirname "$0")/lib.sh"

# mk_case NAME AFTER: process 100 maps /d/NAME.shm (and process 200 too), 300 unlinks it,
# then the ops AFTER
mk_case() {
	mk t <<SPEC
100 100 100 110 openat fd=-100 path=/d/$1.shm flags=O_RDWR ret=5
100 100 120 130 pread64 fd=5 off=0 len=32768 ret=32768
100 100 200 210 mmap fd=5 path=/d/$1.shm off=0 len=32768 flags=1 mode=3 aux=0x7f0000000000 ret=0x7f0000000000
200 200 220 230 openat fd=-100 path=/d/$1.shm flags=O_RDWR ret=6
200 200 240 250 mmap fd=6 path=/d/$1.shm off=0 len=32768 flags=1 mode=3 aux=0x7f1000000000 ret=0x7f1000000000
300 300 10000 10010 unlinkat fd=-100 path=/d/$1.shm ret=0
$2
SPEC
}

# counted N WHAT: the replay of $T/t.reel counts N such unlinks (0: says nothing)
counted() {
	replay_as_traced original "$2"
	if [ "$1" = 0 ]; then
		! grep -q "the replay still had mapped" "$T/out" || fail "$2: counted: $(cat "$T/out")"
	else
		grep -q "^  $1 unlinks or renames over the last name of a file the replay still had mapped" \
			"$T/out" || fail "$2: want $1 counted: $(cat "$T/out")"
		grep -q "$1 unlinks (or renames over) removed the last name of a file the replay still had mapped" \
			"$T/out" || fail "$2: the report does not say so: $(cat "$T/out")"
	fi
	"$IOREEL" info "$T/r.reel" | grep -q "replay.unlinks_mapped *$1$" ||
		fail "$2: meta: $("$IOREEL" info "$T/r.reel" | grep unlinks_mapped)"
}

mk_case a "100 100 20000 20010 munmap path=/d/a.shm aux=0x7f0000000000 len=32768 ret=0
200 200 20000 20010 munmap path=/d/a.shm aux=0x7f1000000000 len=32768 ret=0
300 300 50000 50010 openat fd=-100 path=/d/x flags=O_RDONLY ret=-ENOENT"
counted 0 "unlink, then the munmaps of both mappings (sqlite's -shm)"

mk_case b "100 100 20000 20010 munmap path=/d/b.shm aux=0x7f0000000000 len=32768 ret=0
200 200 20000 20000 exit ret=0
100 100 50000 50010 openat fd=-100 path=/d/x flags=O_RDONLY ret=-ENOENT
300 300 50000 50010 openat fd=-100 path=/d/x flags=O_RDONLY ret=-ENOENT"
counted 0 "unlink, then a munmap and an exit of the other mapping's process"

mk_case c "100 100 50000 50010 openat fd=-100 path=/d/x flags=O_RDONLY ret=-ENOENT
200 200 50000 50010 openat fd=-100 path=/d/y flags=O_RDONLY ret=-ENOENT"
counted 1 "unlink, and no munmap nor exit after (a 1.1 trace; the processes go on)"

mk_case d "100 100 20000 20010 munmap path=/d/d.shm aux=0x7f0000000000 len=32768 ret=0
200 200 20000 20010 munmap path=/d/d.shm aux=0x7f1000000000 len=4096 ret=0
200 200 50000 50010 openat fd=-100 path=/d/x flags=O_RDONLY ret=-ENOENT"
counted 1 "unlink, a munmap of one mapping, the other only cut"
echo PASS
