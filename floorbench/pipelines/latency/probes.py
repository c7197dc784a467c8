"""Marked probes for `floorbench latency`, and the arithmetic that finds them again (pure, no room).

A probe is a short linear chirp; four different ones (up and down sweeps over
two bands) take turns, so a probe found late cannot be mistaken for its
neighbour: the same chirp comes back only every fourth probe. Each one is
found in a recording by normalised cross-correlation at sample resolution
(`floorbench.audio.alignment.best_match`), so one sample — 0.0625 ms at
16 kHz — is the resolution of every lag.

Times: a sample's time on a track is the track's fitted start plus its index
over the rate (`floorbench.clock.TrackFit`), on the one monotonic session
clock that the sender and both receivers share (they run in one process), so
no clock offset is estimated: it is zero by construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from floorbench.audio.alignment import best_match

PROBE_MS = 80
SWEEPS = ((500.0, 2500.0), (2500.0, 500.0), (1200.0, 3600.0), (3600.0, 1200.0))
"""(start Hz, end Hz) of the four chirps, used in turn"""
MATCH_THRESHOLD = 0.5
"""below this normalised peak a probe counts as not found (lost or garbled)"""


def chirp(rate: int, f0: float, f1: float, ms: int = PROBE_MS, amplitude: float = 0.4) -> np.ndarray:
    """A Hann-tapered linear chirp from f0 to f1 Hz as int16."""
    n = rate * ms // 1000
    t = np.arange(n) / rate
    phase = 2 * np.pi * (f0 * t + (f1 - f0) * t**2 / (2 * ms / 1000))
    return (np.sin(phase) * np.hanning(n) * amplitude * 32767).astype(np.int16)


def probe_set(rate: int) -> list[np.ndarray]:
    return [chirp(rate, f0, f1) for f0, f1 in SWEEPS]


@dataclass(frozen=True)
class Found:
    """Where one probe was found in one recording."""

    sample: int
    score: float

    @property
    def ok(self) -> bool:
        return self.score >= MATCH_THRESHOLD


def find_probe(probe: np.ndarray, recording: np.ndarray, expected: int, before: int, after: int) -> Found:
    """The best match of `probe` in `recording` from `expected - before` to `expected + after` samples."""
    at, score = best_match(
        probe.astype(np.float64), recording.astype(np.float64), expected - before, expected + after
    )
    return Found(at, score)


def stats_ms(values_ns: list[int]) -> dict[str, Any]:
    """p50/p95/max/min and jitter (mean |difference| of consecutive probes, RFC 3550's D) in ms."""
    if not values_ns:
        return {"n": 0}
    v = np.array(values_ns, dtype=np.float64) / 1e6
    jitter = float(np.mean(np.abs(np.diff(v)))) if len(v) > 1 else 0.0
    return {
        "n": len(v),
        "p50": round(float(np.percentile(v, 50)), 2),
        "p95": round(float(np.percentile(v, 95)), 2),
        "max": round(float(v.max()), 2),
        "min": round(float(v.min()), 2),
        "jitter": round(jitter, 2),
    }


@dataclass(frozen=True)
class Recording:
    """One received track: its samples and the session time of sample 0."""

    pcm: np.ndarray
    start_ns: int
    rate: int

    def sample_at(self, t_ns: int) -> int:
        return (t_ns - self.start_ns) * self.rate // 1_000_000_000

    def time_ns(self, sample: int) -> int:
        return self.start_ns + sample * 1_000_000_000 // self.rate


def latencies(
    kinds: list[int],
    templates: list[np.ndarray],
    sent_time_ns: list[int],
    received: Recording,
    search_ms: tuple[int, int],
    minus_ns: int = 0,
) -> tuple[list[int | None], list[float]]:
    """Per probe (of template `kinds[k]`), arrival time minus `sent_time_ns[k]` minus `minus_ns`, or None.

    Each probe is searched from `search_ms[0]` before to `search_ms[1]` after
    where it would be with no delay at all. Also returns the match scores.
    """
    rate = received.rate
    out: list[int | None] = []
    scores: list[float] = []
    for t, sent_ns in zip(kinds, sent_time_ns, strict=True):
        found = find_probe(
            templates[t],
            received.pcm,
            received.sample_at(sent_ns),
            search_ms[0] * rate // 1000,
            search_ms[1] * rate // 1000,
        )
        scores.append(round(found.score, 3))
        out.append(received.time_ns(found.sample) - sent_ns - minus_ns if found.ok else None)
    return out, scores
