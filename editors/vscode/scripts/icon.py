#!/usr/bin/env python3
"""Draws the extension's icon, images/icon.png (128x128 RGBA): two litmus paper strips on a
rounded square, one dipped red, one blue (two threads, two outcomes). Standard library only
(zlib); each pixel is 4x4 samples, so the edges are smooth. Run from anywhere:
`python3 editors/vscode/scripts/icon.py`."""
import os
import struct
import zlib

SIZE = 128
SS = 4  # samples per pixel side
BG = (35, 48, 63)
PAPER = (244, 241, 232)
RED = (214, 69, 58)
BLUE = (52, 118, 210)


def in_round_rect(x, y, x0, y0, x1, y1, r):
    """Whether (x, y) lies in the rectangle [x0, x1] x [y0, y1] with corners of radius r."""
    if x < x0 or x > x1 or y < y0 or y > y1:
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def colour(x, y):
    """The colour at a point, or None outside the icon (transparent)."""
    if not in_round_rect(x, y, 0, 0, SIZE, SIZE, 24):
        return None
    for x0, dipped in ((30, RED), (70, BLUE)):
        if in_round_rect(x, y, x0, 14, x0 + 28, 114, 6):
            # the dipped part has a slightly wavy edge, as a wet line on paper
            edge = 60 + 2.5 * ((x - x0) % 14 - 7) ** 2 / 49
            return dipped if y >= edge else PAPER
    return BG


def pixel(px, py):
    acc = [0, 0, 0, 0]
    for sy in range(SS):
        for sx in range(SS):
            c = colour(px + (sx + 0.5) / SS, py + (sy + 0.5) / SS)
            if c is not None:
                acc[0] += c[0]
                acc[1] += c[1]
                acc[2] += c[2]
                acc[3] += 1
    n = acc[3]
    if n == 0:
        return (0, 0, 0, 0)
    return (acc[0] // n, acc[1] // n, acc[2] // n, 255 * n // (SS * SS))


def png(width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(v for p in row for v in p) for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main():
    rows = [[pixel(x, y) for x in range(SIZE)] for y in range(SIZE)]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "images", "icon.png")
    with open(out, "wb") as f:
        f.write(png(SIZE, SIZE, rows))


if __name__ == "__main__":
    main()
