#!/bin/bash
# An O_APPEND fd shared across fork: nginx's master opens its error log O_APPEND and its
# workers inherit the fd; a replay reopens an inherited fd by its path, without O_APPEND
# (the trace has no forks), so the workers' writes went where the trace says while the
# master's, through its own O_APPEND open, went to whatever end the file had when they ran.
# Replayed as fast as possible the master ran ahead of its workers and its last lines
# landed under theirs: the log ended 1431 bytes long instead of 1724. Every write goes where
# the trace says it landed: process 100's last append is due right after its previous one
# (that one took 200 ms when recorded), before process 200's write as a closed loop (think),
# and the file still ends at 300 bytes, as in the original, in every mode.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
100 100 0 10 openat path=/d/log flags=O_WRONLY|O_APPEND aux=101 ret=3
100 100 1000 1010 write fd=3 off=100 len=50 ret=50
100 100 2000 205000 write fd=3 off=150 len=50 ret=50
200 200 200000 200010 write fd=3 path=/d/log off=200 len=60 ret=60
100 100 206000 206010 write fd=3 off=260 len=40 ret=40
100 100 207000 207010 close fd=3 ret=0
SPEC
for m in think afap original; do
	replay_as_traced $m "writes to an O_APPEND log shared across fork"
	check_size "$T/tgt/d/log" 300 "timing $m"
done
echo PASS
