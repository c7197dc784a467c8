"""Loud audio that is not speech: where a model track holds sustained sound Silero does not call speech.

Every timing rule reads the model's *speech* (VAD segments), so a model that
answers with a tone, hold music, an earcon or a broken TTS's noise is silent to
them: it would keep every silence window and yield at once, for free. Such
sound is found here from the two curves scoring already has per 32 ms window —
the Silero probability and the RMS level — and scoring then refuses to count a
silence it covers as a pass (`floorbench.suites.mpe.sound_flags`).

A window is *sound* when it is loud (RMS at or above `SoundRules.min_rms`, full
scale = 1) and Silero's probability stays under `SoundRules.max_probability`;
runs of such windows closer than `bridge_ms` are one run, and a run is kept
when it lasts at least `min_ms`. Windows inside a speech segment are never
sound (a speech segment's own quiet or unvoiced windows are speech).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from floorbench.audio.vad import WINDOW_MS

Segment = tuple[int, int]


@dataclass(frozen=True)
class SoundRules:
    min_rms: float = 0.02
    """−34 dBFS: well above a silent track's codec noise (under −60 dBFS), below speech at a normal level"""
    max_probability: float = 0.3
    """a window Silero gives at most this is not speech (its speech threshold is 0.5)"""
    min_ms: int = 300
    """shorter bursts (a click, a breath, a cough) are not flagged"""
    bridge_ms: int = 100
    """runs with gaps up to this are one sound (a tone's pulses, music's short rests)"""


def non_speech_sounds(
    probabilities: np.ndarray,
    window_rms: np.ndarray,
    speech: Sequence[Segment],
    rules: SoundRules = SoundRules(),
    window_ms: int = WINDOW_MS,
) -> list[Segment]:
    """``(start_ms, end_ms)`` runs of loud non-speech windows, on the file's clock, outside `speech`."""
    n = min(len(probabilities), len(window_rms))
    if n == 0:
        return []
    loud = (np.asarray(window_rms[:n]) >= rules.min_rms) & (np.asarray(probabilities[:n]) < rules.max_probability)
    for s, e in speech:  # a speech segment's windows are speech, whatever their own probability
        loud[max(0, s // window_ms) : min(n, -(-e // window_ms))] = False
    runs: list[list[int]] = []
    bridge = max(0, rules.bridge_ms // window_ms)
    for i in np.flatnonzero(loud).tolist():
        if runs and i - runs[-1][1] <= bridge:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    return [(a * window_ms, b * window_ms) for a, b in runs if (b - a) * window_ms >= rules.min_ms]


def overlap_ms(sounds: Sequence[Segment], start: int, end: int) -> int:
    """How much of ``[start, end)`` the sounds cover, ms."""
    return sum(max(0, min(e, end) - max(s, start)) for s, e in sounds)
