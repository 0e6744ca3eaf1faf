#!/bin/bash
# A file there before the capture is prepared at least as long as a successful
# lseek(SEEK_HOLE) or lseek(SEEK_DATA) shows it was: SEEK_HOLE lands at a hole or at the end,
# SEEK_DATA on a byte of data. GNU grep reads a block, then asks SEEK_HOLE where the data
# ends: /d/grep (10,000 bytes, 4096 read) was prepared 4096 bytes long, the furthest byte
# read, and the replay's SEEK_HOLE from 4096 failed ENXIO where the original's found 10000.
# Likewise a SEEK_DATA past a hole (/d/sparse: data again at 64 KiB). A file the application
# wrote first (/d/wrote) is not prepared longer, nor with data, for its lseeks: its size and
# its holes are the application's.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 10 openat path=/d/grep flags=O_RDONLY ret=3 aux=10001
1 1 20 30 fstat fd=3 path=/d/grep ret=0 subop=8 aux=10001
1 1 40 50 read fd=3 path=/d/grep len=4096 ret=4096
1 1 60 70 lseek fd=3 path=/d/grep off=4096 mode=SEEK_HOLE ret=10000
1 1 80 90 close fd=3 path=/d/grep ret=0
1 1 100 110 openat path=/d/sparse flags=O_RDONLY ret=3 aux=131073
1 1 120 130 read fd=3 path=/d/sparse len=4096 ret=4096
1 1 140 150 lseek fd=3 path=/d/sparse off=4096 mode=SEEK_DATA ret=65536
1 1 160 170 close fd=3 path=/d/sparse ret=0
1 1 200 210 openat path=/d/wrote flags=O_RDWR ret=3 aux=1
1 1 220 230 pwrite64 fd=3 path=/d/wrote off=8192 len=100 ret=100
1 1 240 250 lseek fd=3 path=/d/wrote off=0 mode=SEEK_DATA ret=8192
1 1 260 270 lseek fd=3 path=/d/wrote off=8192 mode=SEEK_HOLE ret=8292
1 1 280 290 close fd=3 path=/d/wrote ret=0
SPEC
replay_as_traced afap "an lseek(SEEK_HOLE / SEEK_DATA) on a file prepared too short"
check_size "$T/tgt/d/grep" 10000 "SEEK_HOLE's landing"
check_size "$T/tgt/d/sparse" 65537 "SEEK_DATA's landing + 1"
# empty before the capture, then written at 8 KiB: its data starts there, as in the original
check_size "$T/tgt/d/wrote" 8292 "a file written before its lseeks"
echo PASS
