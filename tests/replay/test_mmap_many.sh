#!/bin/bash
# Mappings the trace never unmaps (format 1.1 has no munmap; a process's libraries stay
# mapped until it exits) stay in the replay (for msyncs): a trace of more mmaps than
# vm.max_map_count allows one address space failed the rest with ENOMEM. squid with ~700
# curl clients started under one capture: 97,569 mmaps of shared libraries by short-lived
# processes, 12,460-12,568 of them failed in every replay. The replay
# keeps at most half of vm.max_map_count mappings, unmapping the oldest first, as it does past
# its address-space budget. Here one process maps a library at more addresses than the limit
# (two mappings a step, as ld.so makes of a library), then msyncs a recent mapping, which must
# still land on it. Asserts every op ends as in the trace, as fast as possible.
source "$(dirname "$0")/lib.sh"

max=$(cat /proc/sys/vm/max_map_count 2>/dev/null) || exit 77
[ "$max" -le 200000 ] || { echo "SKIP: vm.max_map_count $max: too many ops to exceed" >&2; exit 77; }
nmaps=$((max / 2 + 1000))

python3 - "$nmaps" <<'PY' | mk t
import sys
n = int(sys.argv[1])
print("100 100 0 1 openat path=/lib/libx.so flags=O_RDONLY ret=3")
t = 10
for k in range(n):
    a = 0x7f0000000000 + k * 0x3000
    print(f"100 100 {t} {t + 1} mmap fd=3 off=0 len=8192 flags=2 mode=1 aux=0 ret={a:#x}")
    print(f"100 100 {t + 2} {t + 3} mmap fd=3 off=4096 len=4096 flags=0x12 mode=5 "
          f"aux={a + 0x2000:#x} ret={a + 0x2000:#x}")
    t += 10
print(f"100 100 {t} {t + 1} msync aux={a + 0x1000:#x} len=4096 flags=4 ret=0")
print(f"100 100 {t + 2} {t + 3} close fd=3 ret=0")
PY

replay_as_traced afap "an mmap failed where the original's succeeded (mappings kept past vm.max_map_count?)"
echo PASS
