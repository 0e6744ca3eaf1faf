#!/usr/bin/env python3
"""report on a trace whose one path has id 0xfffffff0 (the format lets ids start anywhere):
the report's caches by path id grew to the id, 4 GiB for a 188-byte trace (7 s, 4 GiB of
memory). It must read it in little memory, and still measure its ops.

usage: report_pathid_test.py IOREEL REPORT_PATHID
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

IOREEL, PATHID = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="ioreel-report-pathid.", dir="/dev/shm")
try:
    trace = os.path.join(tmp, "t.reel")
    subprocess.run([PATHID, trace], check=True)
    p = subprocess.run([IOREEL, "report", "--json", trace], capture_output=True, text=True)
    rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
finally:
    shutil.rmtree(tmp, ignore_errors=True)
fails = []
if rss_mib > 256:
    fails.append("report used %d MiB for a 4-op trace" % rss_mib)
try:
    run = json.loads(p.stdout)["runs"][0]
    if run["ops_measured"] != 4:
        fails.append("report measured %r ops, want 4" % run["ops_measured"])
except (ValueError, KeyError, IndexError):
    fails.append("report --json: exit %d, %r %r" % (p.returncode, p.stdout[:200], p.stderr[:300]))
for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else "%d checks failed" % len(fails))
sys.exit(1 if fails else 0)
