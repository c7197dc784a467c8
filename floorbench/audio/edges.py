"""Where speech starts and stops, to the sample: the energy edge near a coarse boundary.

Silero works in 32 ms windows, and its recurrent state keeps a window's
probability high for a window or three after the audio has dropped to the
noise floor (measured against an outside agent's own log: an agent's stop read
30–116 ms late, median about 75). A caller's clip starts with the voice's
silent pad and a quiet first consonant before any VAD would fire. Timing a
yield or a backchannel on those boundaries charges the agent for time that is
neither its speech nor the caller's.

`speech_edge` moves a coarse boundary (a VAD segment's end, or the first loud
frame of a clip) to the energy edge: the first sample of speech (``onset``)
or one past its last (``offset``). Speech is what the voices are trimmed by
(`floorbench.speech.tts.trim_silence`): within `EdgeRules.range_db` (40 dB)
of the loudest 10 ms frame of the speech's last (or first) 2 s — and, on a recording, clear of
its noise floor by `EdgeRules.floor_margin_db`. Levels are taken in 2 ms
frames; quieter gaps inside speech shorter than `EdgeRules.bridge_ms` (a stop
consonant's closure before its release) do not end it. The found frame is
then narrowed to its first (or last) sample at the threshold's amplitude.

`clip_speech` gives a whole clip's first and last speech samples (a caller's
line as it was sent), with the same function. Pure numpy on int16 or float
arrays; no files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

EdgeKind = Literal["onset", "offset"]


@dataclass(frozen=True)
class EdgeRules:
    """The numbers of an energy edge (docs/testing.md, "Where a step and a stop are timed")."""

    frame_ms: int = 2
    """the level is taken over frames this long (the edge's grain before the last step narrows it to a sample)"""
    loud_frame_ms: int = 10
    """the speech's level: its loudest frame of this length (as the voices are trimmed)"""
    range_db: float = 40.0
    """speech is within this much of the speech's level"""
    floor_margin_db: float = 8.0
    """... and this far above the noise floor (a recording's codec noise, a line's hiss)"""
    floor_percentile: float = 20.0
    """the noise floor: this percentile of the frame levels on the boundary's silent side"""
    silence_dbfs: float = -100.0
    """digital silence counts as this level"""
    reach_ms: int = 250
    """the edge is looked for this far each side of the coarse boundary (about eight VAD windows)"""
    level_ms: int = 300
    """the noise floor is taken this far into the boundary's silent side"""
    speech_level_ms: int = 2000
    """the speech's level is taken this far into its side: the voice's level, not its last word's. Taken over
    the last 300 ms, a sentence's quiet last syllable set the threshold 10 dB lower and its decaying tail
    read as speech: a stop 30–50 ms late against an outside agent's own log"""
    bridge_ms: int = 100
    """quieter gaps shorter than this inside speech do not end it"""


EDGE_RULES = EdgeRules()


def _float(x: np.ndarray) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype == np.int16:
        return a.astype(np.float64) / 32768.0
    return a.astype(np.float64)


def _levels_db(x: np.ndarray, frame: int, floor_db: float) -> np.ndarray:
    """RMS level of each whole `frame` of `x`, dBFS, digital silence at `floor_db`."""
    n = len(x) // frame
    if n == 0:
        return np.empty(0)
    p = (x[: n * frame].reshape(n, frame) ** 2).mean(axis=1)
    with np.errstate(divide="ignore"):
        db = 10 * np.log10(p)
    return np.maximum(db, floor_db)


def loudest_db(x: np.ndarray, rate: int, rules: EdgeRules = EDGE_RULES) -> float:
    """The level of the loudest `loud_frame_ms` frame of `x` (dBFS): the speech's level."""
    lv = _levels_db(_float(x), max(1, rate * rules.loud_frame_ms // 1000), rules.silence_dbfs)
    return float(lv.max()) if len(lv) else rules.silence_dbfs


def speech_edge(x: np.ndarray, rate: int, at: int, kind: EdgeKind, *, lo: int = 0, hi: int | None = None,
                rules: EdgeRules = EDGE_RULES) -> int:
    """The energy edge nearest the coarse boundary `at` (a sample of `x`): for ``onset`` the first sample
    of speech, for ``offset`` one past the last; `at` itself where no edge can be told (no speech near
    it, or speech no louder than the floor). Only ``[lo, hi)`` of `x` is read (a clip's own samples).

    Speech side and silent side: an offset's speech is before `at` and its silence after; an onset's
    the other way round. The threshold is the louder of the speech's level less `range_db` and the
    silent side's floor plus `floor_margin_db`. From the last loud frame before `at` (an onset: the first
    after it) the edge moves on through loud frames while the gaps between them stay under `bridge_ms`,
    within `reach_ms` of `at`: a VAD that ended late is moved back to the drop, one that ended early
    on to the speech it missed.
    """
    hi = len(x) if hi is None else min(hi, len(x))
    lo = max(0, lo)
    if not lo <= at <= hi or hi - lo <= 0:
        return at
    ms = rate / 1000
    reach, level_span = int(rules.reach_ms * ms), int(rules.level_ms * ms)
    speech_span = int(rules.speech_level_ms * ms)
    frame = max(1, int(rules.frame_ms * ms))
    offset = kind == "offset"
    if offset:
        speech = _float(x[max(lo, at - speech_span) : at])
        silent = _float(x[at : min(hi, at + level_span)])
    else:
        speech = _float(x[at : min(hi, at + speech_span)])
        silent = _float(x[max(lo, at - level_span) : at])
    if not len(speech):
        return at
    level = loudest_db(speech, rate, rules)
    quiet = _levels_db(silent, frame, rules.silence_dbfs)
    floor = float(np.percentile(quiet, rules.floor_percentile)) if len(quiet) else rules.silence_dbfs
    thr = max(level - rules.range_db, floor + rules.floor_margin_db)
    if thr >= level:
        return at
    # frames on a grid through `at`, within reach
    first = at - ((at - max(lo, at - reach)) // frame) * frame
    n = (min(hi, at + reach) - first) // frame
    if n <= 0:
        return at
    lv = _levels_db(_float(x[first : first + n * frame]), frame, rules.silence_dbfs)
    loud = np.flatnonzero(lv >= thr)
    k_at = (at - first) // frame
    bridge = max(1, int(rules.bridge_ms * ms) // frame)
    if offset:
        before = loud[loud < k_at]
        if not len(before):
            return at
        k = int(before[-1])
        for j in loud[loud > k].tolist():
            if j - k > bridge:
                break
            k = j
        return _narrow(x, first + k * frame, frame, thr, offset=True)
    after = loud[loud >= k_at]
    if not len(after):
        return at
    k = int(after[0])
    for j in loud[loud < k][::-1].tolist():
        if k - j > bridge:
            break
        k = j
    return _narrow(x, first + k * frame, frame, thr, offset=False)


def _narrow(x: np.ndarray, start: int, frame: int, thr_db: float, *, offset: bool) -> int:
    """Within the loud frame at `start`: the first sample at the threshold's amplitude (an onset), or one
    past the last (an offset); the frame's own edge if no single sample reaches it."""
    a = np.abs(_float(x[start : start + frame]))
    hit = np.flatnonzero(a >= 10 ** (thr_db / 20))
    if not len(hit):
        return start + frame if offset else start
    return start + int(hit[-1]) + 1 if offset else start + int(hit[0])


def clip_speech(x: np.ndarray, rate: int, rules: EdgeRules = EDGE_RULES) -> tuple[int, int] | None:
    """A clip's first speech sample and one past its last (None: nothing in it is speech).

    The coarse boundaries are the first and last `loud_frame_ms` frames within `range_db` of the clip's
    loudest (the rule the voices are trimmed by), and `speech_edge` takes each to its sample.
    """
    xf = _float(x)
    frame = max(1, rate * rules.loud_frame_ms // 1000)
    lv = _levels_db(xf, frame, rules.silence_dbfs)
    if not len(lv):
        return None
    voiced = np.flatnonzero(lv > max(float(lv.max()) - rules.range_db, rules.silence_dbfs))
    if not len(voiced):
        return None
    start = speech_edge(xf, rate, int(voiced[0]) * frame, "onset", rules=rules)
    end = speech_edge(xf, rate, min(len(xf), (int(voiced[-1]) + 1) * frame), "offset", rules=rules)
    return (start, end) if end > start else None
