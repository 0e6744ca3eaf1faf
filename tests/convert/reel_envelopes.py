"""The chunk envelopes of a trace file (FORMAT.md): the damage tests cut, repeat and flip
bytes at their offsets."""
import struct


def chunks(data):
    """[(offset, type, nops, end)] of every chunk after the 16-byte file header, and the
    trailer's offset."""
    out, pos = [], 16
    while pos < len(data) - 16:
        csize, _, nops = struct.unpack_from("<III", data, pos + 8)
        out.append((pos, data[pos + 4], nops, pos + 32 + csize))
        pos += 32 + csize
    return out, pos
