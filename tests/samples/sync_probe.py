#!/usr/bin/env python3
"""sync_probe.py DIR: the median time, in ns, of an 8 KiB pwrite followed by fdatasync on a
scratch file in DIR (200 rounds), printed as one number. The sample record scripts store it
beside each trace (<name>.syncprobe) and the fidelity test measures it again before a
replay: how much slower or faster the disk syncs today than when the sample was recorded, so
that a busy neighbour on a shared disk is not mistaken for an unfaithful replay."""
import os
import sys
import time

path = os.path.join(sys.argv[1], ".ioreel-sync-probe")
buf = b"\x5a" * 8192
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
try:
    times = []
    for i in range(200):
        t = time.perf_counter_ns()
        os.pwrite(fd, buf, (i % 64) * 8192)
        os.fdatasync(fd)
        times.append(time.perf_counter_ns() - t)
finally:
    os.close(fd)
    os.unlink(path)
times.sort()
print(times[len(times) // 2])
