"""The frame index code strip: which sent video frame arrived, read back from its pixels.

Video frames carry no index a receiver can trust through every path (a model
that re-publishes what it sees, a transcoding bridge), so the playback writes
each frame's send index into the picture itself: a row of black/white cells
in the top-left corner of the luma plane, read back by the recorder from the
frame it received. Arrival time minus the sender's capture time of that index
is the video's transport latency, measured per frame on the one session clock.

Layout (in cells of ``width / CELLS_PER_WIDTH`` pixels, square, at the top-left):
two sync cells (white, black), `INDEX_BITS` bits of the index (most significant
first) and `CHECK_BITS` bits of a checksum. The geometry is relative to the
frame width, so a frame the encoder scaled down is still read. A strip that
fails the sync or the checksum reads as None (never a wrong index).
"""

from __future__ import annotations

import numpy as np

CELLS_PER_WIDTH = 40
"""a cell is 1/40 of the frame width: 8 px at 320 px, 16 px at 640 px"""
INDEX_BITS = 16
CHECK_BITS = 4
SYNC = (1, 0)
CELLS = len(SYNC) + INDEX_BITS + CHECK_BITS
BLACK = 16
WHITE = 235
"""limited-range luma levels, as a video encoder expects them"""
INDEX_MOD = 1 << INDEX_BITS


def checksum(index: int) -> int:
    """A 4-bit check of a 16-bit index: nibble sum, offset so that index 0 is not all black."""
    v = index % INDEX_MOD
    return ((v & 0xF) + (v >> 4 & 0xF) + (v >> 8 & 0xF) + (v >> 12 & 0xF) + 0x5) & 0xF


def bits_of(index: int) -> list[int]:
    """The strip's cells for `index`: sync, index bits, checksum bits."""
    v = index % INDEX_MOD
    idx = [(v >> (INDEX_BITS - 1 - i)) & 1 for i in range(INDEX_BITS)]
    chk = checksum(v)
    return [*SYNC, *idx, *[(chk >> (CHECK_BITS - 1 - i)) & 1 for i in range(CHECK_BITS)]]


def cell_px(width: int) -> float:
    return width / CELLS_PER_WIDTH


def stamp(i420: np.ndarray, width: int, height: int, index: int) -> None:
    """Write the strip for `index` into an I420 frame (flat uint8, Y then U then V), in place.

    The chroma under the strip is set neutral so the cells stay grey-scale.
    """
    c = cell_px(width)
    rows = max(1, round(c))
    if rows > height or round(CELLS * c) > width:
        raise ValueError(f"frame {width}x{height} is too small for the frame index strip")
    y = i420[: width * height].reshape(height, width)
    for i, bit in enumerate(bits_of(index)):
        y[:rows, round(i * c) : round((i + 1) * c)] = WHITE if bit else BLACK
    cw, ch = (width + 1) // 2, (height + 1) // 2
    chroma = i420[width * height : width * height + 2 * cw * ch].reshape(2, ch, cw)
    chroma[:, : (rows + 1) // 2, : (round(CELLS * c) + 1) // 2] = 128


def read(y_plane: np.ndarray) -> int | None:
    """The index in a received frame's luma plane (height × width), or None if the strip is not there."""
    height, width = y_plane.shape
    c = cell_px(width)
    if c < 2 or c > height:
        return None
    lo, hi = int(c * 0.25), max(int(c * 0.25) + 1, int(c * 0.75))
    cells = []
    for i in range(CELLS):
        x0 = int(i * c + c * 0.25)
        x1 = max(x0 + 1, int(i * c + c * 0.75))
        cells.append(1 if float(y_plane[lo:hi, x0:x1].mean()) >= (BLACK + WHITE) / 2 else 0)
    if tuple(cells[: len(SYNC)]) != SYNC:
        return None
    index = 0
    for b in cells[len(SYNC) : len(SYNC) + INDEX_BITS]:
        index = index << 1 | b
    chk = 0
    for b in cells[len(SYNC) + INDEX_BITS :]:
        chk = chk << 1 | b
    return index if chk == checksum(index) else None


def unwrap(index: int, last: int | None) -> int:
    """A 16-bit strip index as the full send index nearest after-or-around `last` (wrap-around)."""
    if last is None:
        return index
    base = last - last % INDEX_MOD
    candidates = (base - INDEX_MOD + index, base + index, base + INDEX_MOD + index)
    return min(candidates, key=lambda v: abs(v - last))
