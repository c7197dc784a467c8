"""Synthetic sent tracks and what a receiver's jitter buffer makes of them (tests of the timing clock)."""

from __future__ import annotations

import numpy as np

SR = 16000


def speech_like(rng: np.random.Generator, n: int, rate: int = SR) -> np.ndarray:
    """Band-limited noise under a syllable-rate envelope, peak 1: no pitch period to confuse a correlation."""
    noise = rng.standard_normal(n + 64)
    kernel = np.hanning(16)
    band = np.convolve(noise, kernel / kernel.sum(), mode="same")[:n]
    t = np.arange(n) / rate
    env = 0.55 + 0.45 * np.sin(2 * np.pi * 4.0 * t + rng.uniform(0, 6.28)) ** 2
    x = band * env
    return x / np.abs(x).max()


def sent_track(seed: int, bursts: int = 12, rate: int = SR) -> tuple[np.ndarray, list[int]]:
    """Half a second of silence, then bursts of 0.3–2.5 s between 0.3–1.5 s of silence; and the burst onsets."""
    rng = np.random.default_rng(seed)
    parts, onsets, n = [np.zeros(rate // 2)], [], rate // 2
    for _ in range(bursts):
        length = int(rng.uniform(0.3, 2.5) * rate)
        onsets.append(n)
        parts.append(speech_like(rng, length, rate) * 12000)
        n += length
        gap = int(rng.uniform(0.3, 1.5) * rate)
        parts.append(np.zeros(gap))
        n += gap
    return np.concatenate(parts).astype(np.int16), onsets


def jitter_buffer_edits(
    rng: np.random.Generator, n: int, onsets: list[int], count: int, rate: int = SR
) -> list[tuple[int, int]]:
    """`count` insertions and removals of 2.5–15 ms (a pitch period or three) anywhere but across an onset
    or in its first 25 ms: ten times what a receiver did on a loaded machine (50 ms in 28 s)."""
    edits: list[tuple[int, int]] = []
    while len(edits) < count:
        pos = int(rng.integers(rate, n - rate))
        if any(-30 * rate // 1000 <= pos - o < 25 * rate // 1000 for o in onsets):
            continue
        size = int(rng.integers(rate // 400, rate * 15 // 1000))
        edits.append((pos, size if rng.random() < 0.5 else -size))
    return edits


def received(x: np.ndarray, rng: np.random.Generator, latency: int, noise: float = 30.0) -> np.ndarray:
    """What a receiver plays out: the transport's delay, then the audio with a little codec noise."""
    y = np.concatenate([np.zeros(latency), x.astype(np.float64)]) + rng.normal(0, noise, len(x) + latency)
    return np.clip(y, -32768, 32767).astype(np.int16)
