#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report_png_check.py PNG COLOUR... - checks that a screenshot is a real rendering, not a
blank page: decodes the PNG (zlib + the five row filters, no imaging library needed),
requires many distinct colours, and enough pixels of each given plot colour (#rrggbb, within
a small distance for anti-aliasing). Exit 0 pass, 1 fail."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG layout %r" % (hdr,))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    path, colours = sys.argv[1], sys.argv[2:]
    w, h, bpp, rows = decode(path)
    counts = {}
    for line in rows:
        for i in range(0, len(line), bpp):
            px = (line[i], line[i + 1], line[i + 2])
            counts[px] = counts.get(px, 0) + 1
    print("%s: %dx%d, %d distinct colours" % (path, w, h, len(counts)))
    ok = len(counts) >= 50
    if not ok:
        print("FAIL: nearly blank screenshot")
    for c in colours:
        want = tuple(int(c.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
        near = sum(n for px, n in counts.items()
                   if sum((px[i] - want[i]) ** 2 for i in range(3)) <= 24 ** 2)
        print("  colour %s: %d pixels" % (c, near))
        if near < 150:
            print("FAIL: too few pixels of plot colour %s" % c)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
