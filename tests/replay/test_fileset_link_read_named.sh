#!/bin/bash
# What the application read through a symlink it made is its destination's also when the trace
# names the destination itself (ln -s data.v1 cur; data.v1 stat'd; cur opened and read): the
# destination is prepared as large as read by either name (replay_fileset_links.c, prelinks__merge,
# as for a symlink there before the capture). The read through the link counted only when the
# trace did not name the destination (through__links), so data.v1 was prepared empty and the
# read came back short (pread64 of 200 bytes: 0). Also a file below a link the application
# made to a directory the trace names (lib -> lib.v2, lib.v2 stat'd, lib/x read).
source "$(dirname "$0")/lib.sh"

mk t <<'EOF'
1 1 10 11 stat subop=8 path=/d/data.v1 ret=0
1 1 20 21 symlink path=/d/cur path2=data.v1 ret=0
1 1 30 31 openat path=/d/cur flags=O_RDONLY ret=3
1 1 32 33 pread64 fd=3 path=/d/cur off=0 len=200 ret=200
1 1 34 35 close fd=3 ret=0
1 1 40 41 stat subop=4 path=/d/lib.v2 ret=0
1 1 42 43 stat subop=8 path=/d/lib.v2/x ret=0
1 1 50 51 symlink path=/d/lib path2=lib.v2 ret=0
1 1 60 61 openat path=/d/lib/x flags=O_RDONLY ret=3
1 1 62 63 pread64 fd=3 path=/d/lib/x off=0 len=300 ret=300
1 1 64 65 close fd=3 ret=0
EOF

for mode in original afap; do
	replay_as_traced $mode "a read through a symlink the application made came back short"
	root="$T/tgt"
	check_size "$root/d/data.v1" 200 "$mode: read as cur"
	check_size "$root/d/lib.v2/x" 300 "$mode: read as lib/x"
done
echo PASS
