#!/usr/bin/env python3
"""wl_files.py DIR: the small workload the end-to-end replay tests record. Three threads
pread 20 x 4 KiB each from DIR/in.bin (which must exist, >= 245760 bytes: the furthest
byte read), then one writes DIR/out.tmp (10 x 1000 bytes), fsyncs, renames it to
DIR/out.bin and stats it; a pipe and /proc on the side are not file I/O."""
import os
import sys
import threading

d = sys.argv[1]


def reader(k):
    fd = os.open(d + "/in.bin", os.O_RDONLY)
    for i in range(20):
        os.pread(fd, 4096, (k * 20 + i) * 4096)
    os.close(fd)


ts = [threading.Thread(target=reader, args=(k,)) for k in range(3)]
[t.start() for t in ts]
[t.join() for t in ts]
fd = os.open(d + "/out.tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(10):
    os.write(fd, b"x" * 1000)
os.fsync(fd)
os.close(fd)
os.rename(d + "/out.tmp", d + "/out.bin")
os.stat(d + "/out.bin")
r, w = os.pipe()
os.write(w, b"hello")
os.read(r, 5)
with open("/proc/self/status") as f:
    f.read()
