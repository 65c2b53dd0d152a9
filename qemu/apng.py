#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the demo's written-back frames (binary PPM, as the guest saves them)
into what a person looks at, with the standard library only:

  frame-NNN.png  every frame, full size
  demo.png       an animated PNG (APNG) of all frames, half size, 10 fps
  contact.png    a contact sheet: 12 frames spread over the run, quarter
                 size, in a 4x3 grid

Scaling down keeps every 2nd (4th) pixel of every 2nd (4th) line, done
with byte slicing, so 60 full-HD frames take seconds, not minutes.  The
APNG stores the first frame whole and, for each later one, the rectangle
that changed since the frame before (the background does not move).

  qemu/apng.py [--fps N] [--keep-ppm] DIR
"""
import argparse
import glob
import os
import re
import struct
import sys
import time
import zlib

CONTACT_COLS, CONTACT_ROWS, CONTACT_GAP = 4, 3, 8
CONTACT_BG = (24, 28, 40)


def read_ppm(path):
    """(width, height, RGB bytes) of a binary 8-bit PPM."""
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not m or m.group(3) != b"255":
        raise ValueError(f"{path}: not a binary 8-bit PPM")
    width, height = int(m.group(1)), int(m.group(2))
    pixels = data[m.end():m.end() + width * height * 3]
    if len(pixels) != width * height * 3:
        raise ValueError(f"{path}: {len(pixels)} bytes of pixels, not {width * height * 3}")
    return width, height, pixels


def downscale(width, height, pixels, k):
    """Every k-th pixel of every k-th line: (width, height, RGB bytes)."""
    stride = width * 3
    w, h = width // k, height // k
    lines = b"".join(pixels[y * k * stride:y * k * stride + w * k * 3] for y in range(h))
    out = bytearray(w * h * 3)
    for c in range(3):
        # The lines kept are w * k pixels long, so a step of 3k bytes stays
        # on channel c of every k-th pixel across them.
        out[c::3] = lines[c::3 * k]
    return w, h, bytes(out)


def chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))


def ihdr(width, height):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))


def idat_data(width, height, pixels, level):
    """zlib stream of the lines, each with filter type 0 (none)."""
    stride = width * 3
    raw = b"".join(b"\0" + pixels[y * stride:(y + 1) * stride] for y in range(height))
    return zlib.compress(raw, level)


def write_png(path, width, height, pixels, level=3):
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + ihdr(width, height) +
                chunk(b"IDAT", idat_data(width, height, pixels, level)) +
                chunk(b"IEND", b""))


def first_diff(a, b):
    """Index of the first byte where a and b (same length) differ, or None."""
    if a == b:
        return None
    lo, hi = 0, len(a)          # a[:lo] == b[:lo]; they differ before hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def last_diff(a, b):
    """Index of the last byte where a and b (same length) differ."""
    lo, hi = 0, len(a)          # a[hi:] == b[hi:]; they differ at or after lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[mid:hi] == b[mid:hi]:
            hi = mid
        else:
            lo = mid
    return lo


def changed_rect(width, height, prev, cur):
    """(x, y, w, h) bounding what changed from prev to cur; None if nothing."""
    stride = width * 3
    x0, x1, y0, y1 = width, -1, None, None
    for y in range(height):
        a, b = prev[y * stride:(y + 1) * stride], cur[y * stride:(y + 1) * stride]
        first = first_diff(a, b)
        if first is None:
            continue
        if y0 is None:
            y0 = y
        y1 = y
        x0 = min(x0, first // 3)
        x1 = max(x1, last_diff(a, b) // 3)
    if y0 is None:
        return None
    return x0, y0, x1 - x0 + 1, y1 - y0 + 1


def crop(width, pixels, rect):
    x, y, w, h = rect
    stride = width * 3
    return b"".join(pixels[(y + i) * stride + x * 3:(y + i) * stride + (x + w) * 3]
                    for i in range(h))


def write_apng(path, frames, fps, level=6):
    """frames: list of (width, height, RGB bytes), all of one size."""
    width, height = frames[0][0], frames[0][1]
    seq = 0
    out = [b"\x89PNG\r\n\x1a\n", ihdr(width, height),
           chunk(b"acTL", struct.pack(">II", len(frames), 0))]
    prev = None
    for i, (_, _, pixels) in enumerate(frames):
        rect = (0, 0, width, height)
        if prev is not None:
            # An unchanged frame still needs a region: one pixel, kept.
            rect = changed_rect(width, height, prev, pixels) or (0, 0, 1, 1)
        x, y, w, h = rect
        # dispose 0 (none), blend 0 (source): the region replaces what was there.
        out.append(chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, x, y,
                                              1, fps, 0, 0)))
        seq += 1
        data = idat_data(w, h, crop(width, pixels, rect) if prev is not None else pixels,
                         level)
        if prev is None:
            out.append(chunk(b"IDAT", data))
        else:
            out.append(chunk(b"fdAT", struct.pack(">I", seq) + data))
            seq += 1
        prev = pixels
    out.append(chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def contact_sheet(path, frames):
    """frames: a list of (width, height, RGB bytes) of one size."""
    fw, fh = frames[0][0], frames[0][1]
    cols = min(CONTACT_COLS, len(frames))
    rows = (len(frames) + cols - 1) // cols
    width = cols * fw + (cols + 1) * CONTACT_GAP
    height = rows * fh + (rows + 1) * CONTACT_GAP
    stride = width * 3
    sheet = bytearray(bytes(CONTACT_BG) * (width * height))
    for i, (_, _, pixels) in enumerate(frames):
        x = CONTACT_GAP + (i % cols) * (fw + CONTACT_GAP)
        y = CONTACT_GAP + (i // cols) * (fh + CONTACT_GAP)
        for line in range(fh):
            at = (y + line) * stride + x * 3
            sheet[at:at + fw * 3] = pixels[line * fw * 3:(line + 1) * fw * 3]
    write_png(path, width, height, bytes(sheet), level=6)


def spread(items, n):
    """n items spread evenly over items, first and last included."""
    if len(items) <= n:
        return list(items)
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="folder with the frame-NNN.ppm files")
    ap.add_argument("--fps", type=int, default=10)
    ap.add_argument("--keep-ppm", action="store_true",
                    help="keep the PPM files (by default they go once every image is written)")
    args = ap.parse_args()

    def number(p):
        return int(re.search(r"(\d+)\.ppm$", p).group(1))

    paths = sorted(glob.glob(os.path.join(args.dir, "frame-*.ppm")), key=number)
    if not paths:
        print(f"apng: no frame-*.ppm in {args.dir}", file=sys.stderr)
        return 1
    start = time.monotonic()
    half, quarter = [], []
    for i, path in enumerate(paths):
        width, height, pixels = read_ppm(path)
        if half and (width // 2, height // 2) != half[0][:2]:
            raise ValueError(f"{path}: {width}x{height}, not the size of the first frame")
        write_png(path[:-4] + ".png", width, height, pixels)
        half.append(downscale(width, height, pixels, 2))
        if path in spread(paths, CONTACT_COLS * CONTACT_ROWS):
            quarter.append(downscale(width, height, pixels, 4))
    write_apng(os.path.join(args.dir, "demo.png"), half, args.fps)
    contact_sheet(os.path.join(args.dir, "contact.png"), quarter)
    # Only now: a failure above leaves the frames to run this again on.
    if not args.keep_ppm:
        for path in paths:
            os.unlink(path)
    size = os.path.getsize(os.path.join(args.dir, "demo.png"))
    print(f"[gembuf] saved {args.dir}: {len(paths)} frames as frame-NNN.png, "
          f"demo.png (animated, {half[0][0]}x{half[0][1]}, {args.fps} fps, "
          f"{size / 1e6:.1f} MB), contact.png ({time.monotonic() - start:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
