#!/bin/bash
# A file there before the capture whose first op is an O_CREAT open (not O_EXCL, not O_TRUNC)
# that says it was not empty (aux = size + 1, FORMAT.md): it existed, and is prepared that
# long. git appends each reflog line with open(O_WRONLY|O_CREAT|O_APPEND), and a later reader
# reads the whole log: the open left the path "maybe made by the application", nothing was
# prepared, the replay's appends made a log 214 bytes shorter and the read came out short
# (git stash/checkout/gc trial: 2 short reads of .git/logs/HEAD and logs/refs/heads/main in
# every timing mode). An O_CREAT open that found the file empty (aux=1), or that cut it
# (O_TRUNC), says nothing of what was there: such a file is still left to the replay to make.
# A read of the bytes the application appended needs none of them prepared: /g/log2 (opened
# without O_CREAT, so known to exist) was prepared as long as the read back, and its appends
# made it longer than the original left it.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 100 110 openat fd=-100 path=/g/logs/HEAD flags=O_WRONLY|O_CREAT|O_APPEND mode=0666 ret=3 kind=reg aux=215
100 100 200 210 write fd=3 path=/g/logs/HEAD off=214 len=199 ret=199
100 100 300 310 close fd=3 path=/g/logs/HEAD ret=0
100 101 400 410 openat fd=-100 path=/g/logs/HEAD flags=O_WRONLY|O_CREAT|O_APPEND mode=0666 ret=3 kind=reg aux=414
100 101 500 510 write fd=3 path=/g/logs/HEAD off=413 len=213 ret=213
100 101 600 610 close fd=3 path=/g/logs/HEAD ret=0
100 102 700 710 openat fd=-100 path=/g/logs/HEAD flags=O_RDONLY ret=4 kind=reg aux=627
100 102 800 810 read fd=4 path=/g/logs/HEAD off=0 len=4096 ret=626
100 102 900 910 read fd=4 path=/g/logs/HEAD off=626 len=4096 ret=0
100 102 1000 1010 close fd=4 path=/g/logs/HEAD ret=0
100 100 1100 1110 openat fd=-100 path=/g/new flags=O_WRONLY|O_CREAT|O_APPEND mode=0666 ret=5 kind=reg aux=1
100 100 1200 1210 write fd=5 path=/g/new off=0 len=10 ret=10
100 100 1300 1310 close fd=5 path=/g/new ret=0
100 100 1400 1410 openat fd=-100 path=/g/cut flags=O_WRONLY|O_CREAT|O_TRUNC mode=0666 ret=5 kind=reg aux=1
100 100 1500 1510 write fd=5 path=/g/cut off=0 len=10 ret=10
100 100 1600 1610 close fd=5 path=/g/cut ret=0
100 103 1700 1710 openat fd=-100 path=/g/log2 flags=O_WRONLY|O_APPEND ret=6 kind=reg aux=101
100 103 1800 1810 write fd=6 path=/g/log2 off=100 len=50 ret=50
100 103 1900 1910 close fd=6 path=/g/log2 ret=0
100 103 2000 2010 openat fd=-100 path=/g/log2 flags=O_RDONLY ret=6 kind=reg aux=151
100 103 2100 2110 read fd=6 path=/g/log2 off=0 len=4096 ret=150
100 103 2200 2210 close fd=6 path=/g/log2 ret=0
SPEC
for mode in original think afap; do
	replay_as_traced $mode "the reflog there before was not prepared: its read came out short"
	check_size "$T/tgt/g/logs/HEAD" 626 "$mode"
	check_size "$T/tgt/g/new" 10 "$mode"
	check_size "$T/tgt/g/cut" 10 "$mode"
	check_size "$T/tgt/g/log2" 150 "$mode"
done
echo PASS
