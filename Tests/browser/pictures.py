"""Test pictures made with nothing but the standard library."""
import os
import random
import struct
import zlib


def make_png(path, width=64, height=48, noise=0):
    """Writes a real PNG (a gradient, with some seeded noise so it does not compress away)."""
    jitter = random.Random(7)
    raw = b"".join(b"\x00" + bytes((v + jitter.randrange(noise + 1)) % 256
                                    for x in range(width) for v in (x * 4 % 256, y * 5 % 256, 128))
                   for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    with open(path, "wb") as file:
        file.write(png)
    return len(png)


def make_big_file(path, size):
    """A file of `size` bytes that no layer can compress, starting as a PNG does (named .png:
    the picker's filter; the host judges a file by its bytes)."""
    body = size - 8
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n")
        file.write(random.Random(size).randbytes(body) if hasattr(random.Random, "randbytes") else os.urandom(body))
    return size
