"""The session clock and the sample-index → time fit used for every track.

Each process anchors `time.monotonic_ns()` to `time.time_ns()` once and records
both; CLOCK_MONOTONIC is system-wide on Linux, so events from the runner and
the model child process land on one clock. Records hold integer ms since the
run's anchor.

Audio frames carry no timestamps. For a track we know, per frame, the
cumulative sample index at its end and when it arrived (or, for a published
track, when `capture_frame` returned). Arrivals are late by event-loop jitter,
never early, so the start of sample 0 is a *low percentile* of
``arrival_ns - n_end / sr``; the track's timeline is then ``start + n / sr``
and does not jitter with the loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from floorbench.records import ClockAnchor


class SessionClock:
    """Integer ms (and ns) since one monotonic anchor, with the wall-clock pairing."""

    def __init__(self, anchor: ClockAnchor | None = None) -> None:
        if anchor is None:
            anchor = ClockAnchor(monotonic_ns=time.monotonic_ns(), wall_ns=time.time_ns())
        self.anchor = anchor

    def now_ns(self) -> int:
        return time.monotonic_ns() - self.anchor.monotonic_ns

    def now_ms(self) -> int:
        return self.now_ns() // 1_000_000

    def ms(self, monotonic_ns: int) -> int:
        """A raw `time.monotonic_ns()` reading on this clock, in ms."""
        return (monotonic_ns - self.anchor.monotonic_ns) // 1_000_000


@dataclass(frozen=True)
class TrackFit:
    """``t(n) = start_ns + n * 1e9 / sample_rate`` on the session clock (ns)."""

    sample_rate: int
    start_ns: int
    residual_p50_us: int
    residual_p99_us: int
    frames: int

    def time_ns(self, sample: int) -> int:
        return self.start_ns + sample * 1_000_000_000 // self.sample_rate

    def time_ms(self, sample: int) -> int:
        return self.time_ns(sample) // 1_000_000

    def sample_at(self, t_ns: int) -> int:
        return (t_ns - self.start_ns) * self.sample_rate // 1_000_000_000


def fit_track(
    sample_ends: np.ndarray, times_ns: np.ndarray, sample_rate: int, percentile: float = 1.0
) -> TrackFit:
    """Fit the start time of sample 0 from (cumulative sample at frame end, time) pairs."""
    n = np.asarray(sample_ends, dtype=np.int64)
    t = np.asarray(times_ns, dtype=np.int64)
    if len(n) == 0:
        raise ValueError("no frames to fit")
    nominal = n * 1_000_000_000 // sample_rate
    offsets = t - nominal
    start = int(np.percentile(offsets, percentile))
    resid = (offsets - start) // 1000
    return TrackFit(
        sample_rate=sample_rate,
        start_ns=start,
        residual_p50_us=int(np.percentile(resid, 50)),
        residual_p99_us=int(np.percentile(resid, 99)),
        frames=len(n),
    )
