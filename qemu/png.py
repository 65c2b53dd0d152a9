#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the binary PPM frames the demo writes into PNG files (zlib from
the standard library; no imaging package needed)."""
import struct
import sys
import zlib


def ppm_to_png(src, dst):
    with open(src, "rb") as f:
        data = f.read()
    parts = data.split(b"\n", 3)
    if parts[0] != b"P6" or parts[2] != b"255":
        raise ValueError(f"{src}: not a binary 8-bit PPM")
    width, height = map(int, parts[1].split())
    pixels = parts[3]
    stride = width * 3
    raw = b"".join(b"\0" + pixels[y * stride:(y + 1) * stride] for y in range(height))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))

    png = (b"\x89PNG\r\n\x1a\n" +
           chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    with open(dst, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        ppm_to_png(path, path[:-4] + ".png")
        print(f"{path[:-4]}.png")
