"""A recording's time on the timing clock: a monotone piecewise-linear map (docs/transport.md, "The timing clock").

A receiver's jitter buffer (NetEq) stretches and squeezes what it plays out:
on a busy machine a recorded track is a few ms longer here and shorter there
than what was sent. Where floorbench holds a copy of what was sent, with the
sender's clock, each recorded sample can be traced back to the sample it came
from (`floorbench.audio.track_alignment`), and so to the moment it was sent.
The timing clock of a sample is that moment plus the leg's measured constant
latency (its median): the recorder's clock with the stretch taken out.

`TimeMap` holds that correspondence as points ``(recording µs, timing µs)``:
linear between points, slope one beyond the first and the last. An empty map
is the identity: the recording's own clock (a track nobody holds a sent copy
of, or a folder written before sender records existed). Times are integer µs
in the map and integer ms at its edges (scoring works in ms).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

SIMPLIFY_US = 30
"""a point whose offset (timing − recording) equals both neighbours' within this adds nothing and is dropped"""


def _increasing_chain(points: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest chain of points strictly increasing in both coordinates (points sorted by the first)."""
    tails: list[int] = []  # tails[k]: index of the smallest last timing of a chain of length k + 1
    tail_values: list[int] = []
    prev = [-1] * len(points)
    for i, (_, t) in enumerate(points):
        k = bisect_left(tail_values, t)
        if k > 0:
            prev[i] = tails[k - 1]
        if k == len(tails):
            tails.append(i)
            tail_values.append(t)
        else:
            tails[k] = i
            tail_values[k] = t
    chain: list[tuple[int, int]] = []
    i = tails[-1] if tails else -1
    while i >= 0:
        chain.append(points[i])
        i = prev[i]
    chain.reverse()
    # equal recording positions cannot both stay: keep the first of each
    out: list[tuple[int, int]] = []
    for p in chain:
        if not out or p[0] > out[-1][0]:
            out.append(p)
    return out


def _simplify(points: list[tuple[int, int]], tol_us: int) -> list[tuple[int, int]]:
    if len(points) < 3:
        return points
    keep = [points[0]]
    for i in range(1, len(points) - 1):
        off = points[i][1] - points[i][0]
        a = keep[-1][1] - keep[-1][0]
        b = points[i + 1][1] - points[i + 1][0]
        if abs(off - a) > tol_us or abs(off - b) > tol_us:
            keep.append(points[i])
    keep.append(points[-1])
    return keep


@dataclass(frozen=True)
class TimeMap:
    """Recording time → timing-clock time, both in µs from the recording's first sample."""

    rec_us: tuple[int, ...] = ()
    timing_us: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if len(self.rec_us) != len(self.timing_us):
            raise ValueError("a time map needs as many timing points as recording points")
        for a, b in ((self.rec_us, "recording"), (self.timing_us, "timing")):
            if any(y <= x for x, y in pairwise(a)):
                raise ValueError(f"a time map's {b} points must increase")

    @classmethod
    def from_points(cls, points: Iterable[Sequence[int]], simplify_us: int = SIMPLIFY_US) -> TimeMap:
        """From ``(recording µs, timing µs)`` pairs in any order; pairs that would fold time back are dropped."""
        pts = sorted((int(p[0]), int(p[1])) for p in points)
        chain = _simplify(_increasing_chain(pts), simplify_us)
        return cls(tuple(p[0] for p in chain), tuple(p[1] for p in chain))

    @classmethod
    def offset(cls, offset_us: int) -> TimeMap:
        """Timing = recording + a constant."""
        return cls((0,), (int(offset_us),))

    @property
    def is_identity(self) -> bool:
        return not self.rec_us or (len(self.rec_us) == 1 and self.rec_us[0] == self.timing_us[0])

    def points(self) -> list[list[int]]:
        """As stored in turns.json (``model_time_map``): ``[[recording µs, timing µs], ...]``."""
        return [[r, t] for r, t in zip(self.rec_us, self.timing_us, strict=True)]

    def _interp(self, x: float, xs: Sequence[int], ys: Sequence[int]) -> int:
        if not xs:
            return round(x)
        if x <= xs[0]:
            return round(ys[0] + (x - xs[0]))
        if x >= xs[-1]:
            return round(ys[-1] + (x - xs[-1]))
        return round(float(np.interp(x, xs, ys)))

    def to_timing_us(self, rec_us: float) -> int:
        return self._interp(rec_us, self.rec_us, self.timing_us)

    def to_recording_us(self, timing_us: float) -> int:
        return self._interp(timing_us, self.timing_us, self.rec_us)

    def to_timing_ms(self, rec_ms: int) -> int:
        return round(self.to_timing_us(rec_ms * 1000) / 1000)

    def to_recording_ms(self, timing_ms: int) -> int:
        return round(self.to_recording_us(timing_ms * 1000) / 1000)

    def segments_ms(self, segments: Iterable[Sequence[int]]) -> list[tuple[int, int]]:
        """Speech segments found on the recording, ``(start ms, end ms)``, on the timing clock."""
        return [(self.to_timing_ms(int(s[0])), self.to_timing_ms(int(s[1]))) for s in segments]

    def spans_to_recording_ms(self, spans: Iterable[Sequence[int]]) -> list[tuple[int, int]]:
        """Timing-clock spans back on the recording (to cut its audio)."""
        return [(self.to_recording_ms(int(s[0])), self.to_recording_ms(int(s[1]))) for s in spans]


def time_map_of(points: object) -> TimeMap:
    """turns.json's ``model_time_map`` (None or absent: the recording's own clock)."""
    if not points:
        return TimeMap()
    if not isinstance(points, list) or not all(
        isinstance(p, list | tuple) and len(p) == 2 and all(isinstance(v, int) for v in p) for p in points
    ):
        raise ValueError("model_time_map must be a list of [recording µs, timing µs] integer pairs")
    return TimeMap.from_points(points, simplify_us=0)
