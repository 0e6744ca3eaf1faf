"""Checks on the file positions an import tracked (shared by the strace import tests)."""
import os


def contiguous(ops, name, path):
    """read()/write() offsets on path must follow each other and cover the whole file.
    Returns a failure message, or None."""
    pos = 0
    for o in ops:
        if o["op"] != name or o["path"] != path:
            continue
        if o["offset"] != pos:
            return "%s %s at %d, the file position was %d" % (name, path, o["offset"], pos)
        pos += max(o["ret"], 0)
    if pos != os.path.getsize(path):
        return "%s on %s covered %d bytes of %d" % (name, path, pos, os.path.getsize(path))
    return None


def tar_errors(ops, d):
    """The tar run both import tests record: the archive d/a.tar written in order, d/src/f1..4
    read in order and written in order as d/out/src/f1..4. Returns the failure messages."""
    checks = [("write", d + "/a.tar")]
    for i in (1, 2, 3, 4):
        checks += [("read", d + "/src/f%d" % i), ("write", d + "/out/src/f%d" % i)]
    return [e for e in (contiguous(ops, name, path) for name, path in checks) if e]
