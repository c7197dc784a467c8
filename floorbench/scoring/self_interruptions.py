"""What the agent's own echo does to it: self-interruptions and restarts, from the recordings alone.

Under `--acoustics …+echo` (floorbench.speech.echo) the agent's voice comes
back in the caller's track. An agent that takes it for the caller stops
talking — cut off mid-word, by its own barge-in handling — while nobody else
is speaking, and may then answer what it heard: its own words.

A **self-interruption** is an agent run of speech (pauses of 300 ms end a
run) that

- ends **abruptly**: its last loud 10 ms frame (within 20 dB of the run's
  loud level, the 90th percentile of its frames) is followed within 20 ms by
  a fall of at least `DROP_DB` (a voice cut off; a sentence that ends decays
  over 50 ms or more: Piper's last frames fall 3–13 dB per 10 ms, a
  cascade's cleared output queue 24 dB in one, measured), and
- ends while **no caller was speaking**: no caller clip within
  `QUIET_BEFORE_MS` before the stop — so what it stopped for can only have
  been its own echo (or noise).

A **restart** is the agent speaking again within `RESTART_MS` of a
self-interruption with no caller clip in between: it answered what it heard.

Both are counted only in a call whose caller's track carried the echo; every
such cut, echo or not, is a **cut-off** (`summary`): a voice that ends
abruptly of itself (espeak-ng's) shows cut-offs without any echo, so the
comparison that means something is one agent's cut-offs with and without
echo. A reference agent that does not listen (`oracle`) has none either way.
Abrupt stops *during* a caller's turn are barge-ins, counted by the timing
metrics, not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

FRAME_MS = 10
LOUD_DB = 20.0
"""a frame is loud when within this much of the run's loud level"""
DROP_DB = 20.0
"""a fall this large within `DROP_FRAMES` frames after the last loud frame is a cut"""
DROP_FRAMES = 2
SEARCH_MS = 300
"""the last loud frame is looked for this far either side of the run's VAD end (VAD's 32 ms grid and hangover)"""
QUIET_BEFORE_MS = 1500
"""no caller speech this long before the stop: nothing but the echo can have stopped it"""
RESTART_MS = 3000

Segment = tuple[int, int]


@dataclass(frozen=True)
class SelfInterruption:
    """One agent run cut off while no caller spoke."""

    start_ms: int
    """the run's start (track ms)"""
    stop_ms: int
    """where its voice was cut (the end of its last loud frame)"""
    drop_db: float
    restarted_ms: int | None
    """when it spoke again, with no caller in between (None: it did not within `RESTART_MS`)"""


def frame_levels_db(audio: np.ndarray, rate: int) -> np.ndarray:
    """RMS level of each 10 ms frame, dBFS (float audio, full scale 1; int16 is scaled)."""
    x = np.asarray(audio)
    x = x.astype(np.float64) / 32768.0 if x.dtype == np.int16 else x.astype(np.float64)
    n = rate * FRAME_MS // 1000
    frames = x[:len(x) // n * n].reshape(-1, n)
    return 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-12)


def cut_at(levels: np.ndarray, run: Segment) -> tuple[int, float] | None:
    """(stop ms, drop dB) when the run ends abruptly; None when its voice decays (or the run is too short)."""
    s, e = run[0] // FRAME_MS, run[1] // FRAME_MS
    inside = levels[s:e]
    if len(inside) < 5:
        return None
    loud = float(np.percentile(inside, 90))
    lo, hi = max(s, e - SEARCH_MS // FRAME_MS), min(len(levels) - DROP_FRAMES, e + SEARCH_MS // FRAME_MS)
    last = next((i for i in range(hi - 1, lo - 1, -1) if levels[i] >= loud - LOUD_DB), None)
    if last is None:
        return None
    drop = float(levels[last] - np.max(levels[last + 1:last + 1 + DROP_FRAMES]))
    return ((last + 1) * FRAME_MS, drop) if drop >= DROP_DB else None


def self_interruptions(audio: np.ndarray, rate: int, runs: Sequence[Segment],
                       caller: Sequence[Segment]) -> list[SelfInterruption]:
    """The agent's runs (track ms, pauses of 300 ms cut) cut off while no caller clip (track ms) was near."""
    levels = frame_levels_db(audio, rate)
    out = []
    for i, run in enumerate(runs):
        cut = cut_at(levels, run)
        if cut is None:
            continue
        stop, drop = cut
        if any(cs < stop and ce > stop - QUIET_BEFORE_MS for cs, ce in caller):
            continue  # a caller was speaking: a barge-in, not its echo
        nxt = runs[i + 1][0] if i + 1 < len(runs) else None
        restarted = (nxt if nxt is not None and nxt - stop <= RESTART_MS
                     and not any(stop <= cs < nxt for cs, _ in caller) else None)
        out.append(SelfInterruption(int(run[0]), stop, round(drop, 1), restarted))
    return out


def summary(found: Sequence[SelfInterruption], echo: bool) -> dict[str, Any]:
    """``cut_offs``: every run cut off while no caller spoke; ``self_interruptions`` and ``restarts``: those of a
    call whose caller's track carried the agent's echo (`echo`) — without one, none was its echo. A voice
    that ends abruptly of itself (espeak-ng's formant voices do, measured: a 26 dB fall) shows as cut-offs, so
    compare cut-offs with and without echo for the same agent."""
    return {"self_interruptions": len(found) if echo else 0,
            "restarts": sum(f.restarted_ms is not None for f in found) if echo else 0,
            "cut_offs": len(found), "at": [asdict(f) for f in found]}
