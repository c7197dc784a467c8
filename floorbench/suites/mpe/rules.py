"""The rules of suite `mpe` (Duplex-MPE, docs/suites/mpe.md), declared once.

`MpeRules` holds every number of the benchmark's live schedule and of its
timing metrics. The live schedule (`floorbench.suites.mpe.schedule`) plays by
it and the scorer (`floorbench.suites.mpe.timing`) judges by it; both are built
from one instance, and both record it (meta.json ``schedule.rules``,
scores.json ``settings.timing``). Changing a number is a different benchmark.

Speech detection (Silero threshold, 120 ms minimum, 800 ms merge) is not here:
it is shared by every suite and lives in `floorbench.audio.vad.VadRules`.
"""

from __future__ import annotations

from dataclasses import dataclass

TURN_GAP_RANGE_MS = (400, 500)
"""the silence between ordinary turns that the benchmark allows"""


@dataclass(frozen=True)
class MpeRules:
    """The numbers of suite mpe (docs/suites/mpe.md); defaults are the benchmark's."""

    turn_gap_ms: int = 500
    """silence between the end of an ordinary turn and the start of the next (400–500)"""
    preamble_gap_ms: int = 500
    """silence between the end of the spoken duty preamble and the first turn"""
    onset_window_ms: int = 5000
    """T: the model must start speaking within this long after the request ends
    (the fresh-onset limit); the schedule gives it exactly this long"""
    endpoint_ms: int = 2000
    """T: the response has ended once the model has been silent this long (the endpoint rule)"""
    response_cap_ms: int = 60000
    """T: the schedule waits at most this long for the endpoint, from the onset
    (from the request end if the model was already speaking then)"""
    n4_window_ms: int = 3000
    """N4: the resolution (N4R) starts exactly this long after the question (N4Q)
    ends; a window response or qualifying onset must come within it"""
    yield_deadline_ms: int = 2000
    """N4: the model must be silent within this long after the resolution starts"""

    def __post_init__(self) -> None:
        lo, hi = TURN_GAP_RANGE_MS
        if not lo <= self.turn_gap_ms <= hi:
            raise ValueError(
                f"turn_gap_ms={self.turn_gap_ms}: the mpe schedule allows {lo}–{hi} ms between turns"
            )
