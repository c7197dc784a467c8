"""After a scenario: where each sent sample landed in the recording, and what it cost.

The playback participant keeps what it sent (``humans.sent.wav``, indexed by its
track's sample clock); the recorder keeps what arrived (``humans.wav``, with
its fitted start time). Cross-correlating the two gives, per turn, the lag in
samples and so the transport latency (docs/transport.md): time from a sample
leaving the playback participant to the same sample arriving at the recorder.

The same lags put every human turn on the recorder's clock (``turns.json``):
metrics are reported as a listener in the room heard them, and the latency is
reported beside them, never silently subtracted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TurnLag:
    """Where one sent turn was found in the recording."""

    turn_id: int
    sent_start: int
    lag: int
    """recorded index = sent index + lag"""
    score: float
    """peak normalised correlation (0..1); low means the turn was not found cleanly"""


def window_sums(x: np.ndarray, width: int) -> np.ndarray:
    """Sum of every ``width``-long window of ``x`` (``np.convolve(x, ones, "valid")``) in O(n).

    The direct convolution cost ~9 CPU-seconds per scenario at the end of every
    room (1.5 s probes at 16 kHz), stalling the rooms still playing.
    """
    c = np.concatenate(([0.0], np.cumsum(x, dtype=np.float64)))
    return np.maximum(c[width:] - c[:-width], 0.0)  # round-off can leave tiny negatives


def best_match(ref: np.ndarray, rec: np.ndarray, lo: int, hi: int) -> tuple[int, float]:
    """Best lag in [lo, hi] such that rec[n + lag] ≈ ref[n]; returns (lag, normalised peak)."""
    lo = max(lo, 0)
    hi = min(hi, len(rec) - len(ref))
    if hi < lo or len(ref) == 0:
        return lo, 0.0
    seg = rec[lo : hi + len(ref)]
    n = len(seg) + len(ref)
    size = 1 << (n - 1).bit_length()
    corr = np.fft.irfft(np.fft.rfft(seg, size) * np.conj(np.fft.rfft(ref, size)), size)
    corr = corr[: hi - lo + 1]
    energy = np.sqrt(window_sums(seg.astype(np.float64) ** 2, len(ref))[: len(corr)])
    ref_norm = float(np.linalg.norm(ref)) or 1.0
    denom = energy * ref_norm
    # digital silence would divide FFT round-off by ~0: floor the denominator
    norm = corr / np.maximum(denom, 1e-3 * float(denom.max()) + 1e-9)
    i = int(np.argmax(norm))
    return lo + i, float(norm[i])


def align_turns(
    sent: np.ndarray,
    recorded: np.ndarray,
    turn_starts: list[tuple[int, int, int]],
    sample_rate: int,
    search_ms: tuple[int, int] = (-200, 2000),
    probe_ms: int = 1500,
) -> list[TurnLag]:
    """Find each turn ``(turn_id, sent_start, expected_lag)`` in the recording.

    `expected_lag` is where the turn would be if transport took no time (from
    the timeline entry and the recorded track's clock fit); the search runs
    from `search_ms[0]` to `search_ms[1]` beyond it.
    """
    x = sent.astype(np.float64)
    y = recorded.astype(np.float64)
    probe = probe_ms * sample_rate // 1000
    out = []
    for turn_id, start, expected_lag in turn_starts:
        ref = x[start : start + probe]
        lo = start + expected_lag + search_ms[0] * sample_rate // 1000
        hi = start + expected_lag + search_ms[1] * sample_rate // 1000
        pos, score = best_match(ref, y, lo, hi)
        out.append(TurnLag(turn_id, start, pos - start, score))
    return out


def percentile_ms(values_ns: list[int], q: float) -> int:
    return int(np.percentile(np.array(values_ns, dtype=np.int64), q)) // 1_000_000 if values_ns else 0


def drift_ms_per_100s(times_ns: list[int], latencies_ns: list[int]) -> float | None:
    """Slope of latency over the scenario (least squares), ms per 100 s."""
    if len(times_ns) < 3:
        return None
    t = (np.array(times_ns, dtype=np.float64) - times_ns[0]) / 1e9
    if t[-1] - t[0] < 5:
        return None
    lat = np.array(latencies_ns, dtype=np.float64) / 1e6
    slope = np.polyfit(t, lat, 1)[0]
    return round(float(slope) * 100.0, 3)
