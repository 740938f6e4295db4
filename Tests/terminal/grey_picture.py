"""A small greyscale picture written as a PNG, for reading captured QR codes with zbarimg.

The standard library's zlib and struct are enough; the tests need no imaging package."""

import struct
import zlib


class GreyPicture:
    """A width-by-height picture of 8-bit grey levels (0 black, 255 white)."""

    def __init__(self, width, height, level=0):
        self.width = width
        self.height = height
        self.rows = [bytearray([level]) * width for _ in range(height)]

    def fill(self, box, level):
        """Paints the box (left, top, right, bottom; right and bottom excluded), clipped to the picture."""
        left, top, right, bottom = box
        left, right = max(0, left), min(self.width, right)
        for y in range(max(0, top), min(self.height, bottom)):
            if left < right:
                self.rows[y][left:right] = bytes([level]) * (right - left)

    def paste(self, other, at):
        """Copies another picture in with its top-left corner at `at`, clipped to this one."""
        x0, y0 = at
        for y, row in enumerate(other.rows):
            if 0 <= y0 + y < self.height:
                start, end = max(0, x0), min(self.width, x0 + other.width)
                if start < end:
                    self.rows[y0 + y][start:end] = row[start - x0:end - x0]

    def save(self, path):
        """Writes the picture as an 8-bit greyscale PNG."""
        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 0, 0, 0, 0)
        pixels = b"".join(b"\x00" + bytes(row) for row in self.rows)
        with open(path, "wb") as file:
            file.write(b"\x89PNG\r\n\x1a\n")
            file.write(chunk(b"IHDR", header))
            file.write(chunk(b"IDAT", zlib.compress(pixels, 9)))
            file.write(chunk(b"IEND", b""))
