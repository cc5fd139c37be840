"""A tiny PNG line-chart writer for the demo (no plotting library needed): one panel per series."""
import struct
import zlib

COLORS = [(31, 119, 180), (214, 39, 40), (44, 160, 44)]

# A 5x7 bitmap font for the labels: each glyph is seven rows of five pixels, '#' drawn.
_GLYPHS = {
    "0": [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
    "1": ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    "2": [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
    "3": ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
    "4": ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
    "5": ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
    "6": ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
    "7": ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
    "8": [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
    "9": [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
    ".": ["     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "],
    "%": ["##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"],
    "-": ["     ", "     ", "     ", "#####", "     ", "     ", "     "],
    ">": ["#    ", " #   ", "  #  ", "   # ", "  #  ", " #   ", "#    "],
    "(": ["   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "],
    ")": [" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "],
    " ": ["     "] * 7,
    "a": ["     ", "     ", " ### ", "    #", " ####", "#   #", " ####"],
    "c": ["     ", "     ", " ### ", "#    ", "#    ", "#   #", " ### "],
    "e": ["     ", "     ", " ### ", "#   #", "#####", "#    ", " ### "],
    "h": ["#    ", "#    ", "# ## ", "##  #", "#   #", "#   #", "#   #"],
    "i": ["  #  ", "     ", " ##  ", "  #  ", "  #  ", "  #  ", " ### "],
    "l": [" ##  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    "n": ["     ", "     ", "# ## ", "##  #", "#   #", "#   #", "#   #"],
    "o": ["     ", "     ", " ### ", "#   #", "#   #", "#   #", " ### "],
    "p": ["     ", "     ", "#### ", "#   #", "#### ", "#    ", "#    "],
    "r": ["     ", "     ", "# ## ", "##  #", "#    ", "#    ", "#    "],
    "s": ["     ", "     ", " ####", "#    ", " ### ", "    #", "#### "],
    "t": [" #   ", " #   ", "###  ", " #   ", " #   ", " #  #", "  ## "],
    "u": ["     ", "     ", "#   #", "#   #", "#   #", "#  ##", " ## #"],
    "y": ["     ", "     ", "#   #", "#   #", " ####", "    #", " ### "],
}


def _png(path, width, height, pixels):
    raw = b"".join(b"\x00" + bytes(pixels[y * width * 3:(y + 1) * width * 3]) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def _text(put, x, y, text, color=(0, 0, 0)):
    """Draws `text` with its top-left corner at (x, y); characters without a glyph are skipped."""
    for k, ch in enumerate(text):
        for row, bits in enumerate(_GLYPHS.get(ch, _GLYPHS[" "])):
            for col, bit in enumerate(bits):
                if bit == "#":
                    put(x + 6 * k + col, y + row, color)


def _number(name, v):
    return f"{v:.1%}" if "accuracy" in name else f"{v:.4g}"


def line_charts(path, series, width=640, panel_height=200, margin=20):
    """Writes `series` ({name: [values per epoch]}) as stacked panels, each scaled to its own range
    and titled with its name and its first and last values; points are epochs 1, 2, ..."""
    height = panel_height * len(series)
    pixels = bytearray([255]) * (width * height * 3)

    def put(x, y, color):
        if 0 <= x < width and 0 <= y < height:
            i = (y * width + x) * 3
            pixels[i:i + 3] = bytes(color)

    for p, (name, values) in enumerate(series.items()):
        top, color = p * panel_height, COLORS[p % len(COLORS)]
        for x in range(margin, width - margin):  # axes
            put(x, top + panel_height - margin, (0, 0, 0))
        for y in range(top + margin, top + panel_height - margin + 1):
            put(margin, y, (0, 0, 0))
        lo, hi = min(values), max(values)
        span = (hi - lo) or 1.0
        _text(put, margin + 8, top + 4, f"{name} ({_number(name, values[0])} -> {_number(name, values[-1])})", color)
        last = f"epoch {len(values)}"
        _text(put, width - margin - 6 * len(last), top + panel_height - margin + 5, last)
        _text(put, margin, top + panel_height - margin + 5, "epoch 1")
        points = [(margin + round(i * (width - 2 * margin) / max(len(values) - 1, 1)),
                   top + panel_height - margin - round((v - lo) / span * (panel_height - 2 * margin)))
                  for i, v in enumerate(values)]
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            steps = max(abs(x1 - x0), abs(y1 - y0), 1)
            for s in range(steps + 1):
                x, y = x0 + (x1 - x0) * s // steps, y0 + (y1 - y0) * s // steps
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        put(x + dx, y + dy, color)
        for x, y in points:
            for dx in range(-3, 4):
                for dy in range(-3, 4):
                    put(x + dx, y + dy, color)
    _png(path, width, height, pixels)
