"""The rules of suite `turns` (live turn-taking, docs/suites/turns.md), declared once.

`TurnsRules` holds every number of the suite: the event-anchored scoring
windows (TurnBench's), the allowed pause lengths and event offsets that the
scenario validator checks, and the waits of the live schedule. The schedule
(`floorbench.suites.turns.schedule`) plays by it, the matcher and scorer
(`floorbench.suites.turns.match`, `turns_score`) judge by it, and both record
it. Changing a number is a different benchmark.

Speech detection is not here: it is shared by every suite
(`floorbench.audio.vad.VadRules`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class TurnEvent(StrEnum):
    """What one clip of the user's track means for the floor (docs/suites/turns.md "Events")."""

    eot = "eot"
    """user speech whose end is a real end of turn: the model should take the floor"""
    pause = "pause"
    """user speech followed by a mid-turn pause, after which the user goes on: do not take the floor"""
    interrupt = "interrupt"
    """the user barges in while the model talks, meaning to take the floor: stop
    (the clip is a whole user turn, so its end is also an end of turn)"""
    backchannel = "backchannel"
    """"mm-hm", "right" while the model talks: keep talking"""
    noise = "noise"
    """a sound that is not meant for the model (a background voice): ignore it"""


USER_SPEECH = frozenset({TurnEvent.eot, TurnEvent.pause, TurnEvent.interrupt})
"""clips that are (part of) a user turn, as opposed to sounds during the model's turn"""
TIMED_TO_MODEL = frozenset({TurnEvent.interrupt, TurnEvent.backchannel})
"""clips always placed against the model's speech onset (noise may be, too)"""

CONVERSATION_TYPES = ("casual", "task-oriented", "instructional", "storytelling", "argument")


@dataclass(frozen=True)
class TurnsRules:
    """The numbers of suite turns (docs/suites/turns.md); defaults are the benchmark's."""

    early_tolerance_ms: int = 250
    """a decision up to this long before a positive event still counts (TurnBench's tau_pre);
    negative spans are widened by the same amount at their start"""
    latency_deadline_ms: int = 3000
    """a positive event's window ends this long after it, or at the next positive
    event of the same task if that comes first (TurnBench's tau_max)"""
    pause_min_ms: int = 400
    pause_max_ms: int = 1500
    """a mid-turn pause lasts 400–1 500 ms"""
    offset_min_ms: int = 300
    offset_max_ms: int = 10000
    """a clip timed against the model (barge-in, backchannel, noise) starts this long after its onset"""
    onset_window_ms: int = 5000
    """after an end of turn the schedule waits this long for the model to take the floor"""
    endpoint_ms: int = 1500
    """the model's reply has ended once it has been silent this long (then the user goes on)"""
    response_cap_ms: int = 30000
    """the schedule waits at most this long for the endpoint, from the onset"""
    turn_gap_ms: int = 300
    """silence between the model's endpoint (or a clip in silence) and the next clip"""
    takeover_min_ms: int = 1000
    """Full-Duplex-Bench's takeover: a model response at least this long"""
    fp_budget: float = 0.10
    """ranking: recall counts among systems whose false-positive rate is at most this"""

    def __post_init__(self) -> None:
        if not 0 < self.pause_min_ms <= self.pause_max_ms:
            raise ValueError(f"pause range {self.pause_min_ms}–{self.pause_max_ms} ms: needs 0 < min ≤ max")
        if self.early_tolerance_ms < 0 or self.latency_deadline_ms <= 0:
            raise ValueError("early_tolerance_ms must be ≥ 0 and latency_deadline_ms > 0")
