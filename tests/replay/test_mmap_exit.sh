#!/bin/bash
# A process's mappings go when it ends, as the kernel unmaps them at exit. Short processes
# (a shell script, a mail server's daemons) map their libraries and never munmap them: the
# replay kept every mapping of every process of the trace, up to half of vm.max_map_count,
# and scanned them all at each mmap, munmap and msync (a script of 3174 processes: half of
# the replay's CPU, afap 4.8x slower). Also, a file a process had mapped and another removed
# after it ended was still mapped by the replay, so its removal freed nothing.
source "$(dirname "$0")/lib.sh"

# 1. process 200 maps a.bin and ends; process 300 removes it later: not a mapped file then
mk t <<'SPEC'
200 200 100 110 openat fd=-100 path=/d/a.bin flags=O_RDONLY ret=3
200 200 200 210 mmap fd=3 path=/d/a.bin off=0 len=65536 flags=2 mode=1 aux=0x7f0000000000 ret=0x7f0000000000
200 200 300 310 close fd=3 path=/d/a.bin ret=0
300 300 50000 50010 unlinkat fd=-100 path=/d/a.bin ret=0
SPEC
replay_as_traced original "a mapped file removed after its process ended"
! grep -q "the replay still had mapped" "$T/out" ||
	fail "a.bin counted as still mapped after its process ended: $(cat "$T/out")"
"$IOREEL" info "$T/r.reel" | grep -q "replay.mmaps_exited *1$" ||
	fail "want 1 process's mappings gone at its end: $("$IOREEL" info "$T/r.reel" | grep mmaps)"

# 2. more mappings over the trace than the replay may keep at once (half of
# vm.max_map_count), 8 per process, none unmapped: none evicted, each process's gone at its end
max=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 65530)
procs=$(((max / 2 + 4000) / 8))
python3 - "$procs" >"$T/spec" <<'PY'
import sys
n = int(sys.argv[1])
for p in range(n):
    pid, t = 1000 + p, p * 100
    print(f"{pid} {pid} {t} {t + 1} openat fd=-100 path=/d/lib.so flags=O_RDONLY ret=3")
    for i in range(8):
        a = 0x7f0000000000 + i * 0x10000
        print(f"{pid} {pid} {t + 2 + i * 2} {t + 3 + i * 2} mmap fd=3 path=/d/lib.so off=0 "
              f"len=16384 flags=2 mode=1 aux={a:#x} ret={a:#x}")
    print(f"{pid} {pid} {t + 20} {t + 21} close fd=3 path=/d/lib.so ret=0")
PY
mk t <"$T/spec"
replay_as_traced afap "$procs short processes' mappings"
! grep -q "the oldest are unmapped" "$T/out" ||
	fail "mappings evicted: the ended processes' were kept: $(cat "$T/out")"
"$IOREEL" info "$T/r.reel" | grep -q "replay.mmaps_exited *$procs$" ||
	fail "want $procs processes' mappings gone at their end: $("$IOREEL" info "$T/r.reel" |
		grep mmaps)"
echo PASS
