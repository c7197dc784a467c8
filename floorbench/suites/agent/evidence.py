"""What the assertions of a conversation test read of one trial: its steps, its clips as heard, its evidence.

The records shared by every judge of suite agent's trials (the assertions, the
persona judge, the tool checks), kept apart from the assertions themselves so
that those judges import the records, not one another: a step as meta.json
records it (`StepPlan`), a caller clip as heard (`Placed`), a trial's recording
reduced to what is judged (`Evidence`), one assertion's outcome (`Result`), and
where the caller's next turn starts (`next_turn_start`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from floorbench.suites.agent.rules import TURN_ENDS, StepKind

Segment = tuple[int, int]
END_SLACK_MS = 40
"""a segment ending this close to the recording's end was cut by it (the agent was still talking)"""


@dataclass(frozen=True)
class StepPlan:
    """One step as meta.json ``schedule.steps`` records it."""

    n: int
    kind: StepKind
    clip: int | None = None
    pause_ms: int | None = None
    expect: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> StepPlan:
        return cls(int(d["n"]), StepKind(d["kind"]), d.get("clip"), d.get("pause_ms"), asserted(d.get("expect")))


def asserted(expect: Mapping[str, Any] | None) -> dict[str, Any]:
    """The assertions an expectation record sets (unset ones are None or an empty list)."""
    return {k: v for k, v in (expect or {}).items() if v is not None and v != []}


@dataclass(frozen=True)
class Placed:
    """A caller clip as heard on the model's clock."""

    start_ms: int
    end_ms: int
    speech_start_ms: int | None = None
    """its first speech sample as sent, past the voice's silent pad (`floorbench.suites.agent.timing`)"""
    speech_end_ms: int | None = None
    """one past its last speech sample as sent"""

    @property
    def speech_from(self) -> int:
        """where the caller starts speaking (the clip's start where its speech was not found)"""
        return self.start_ms if self.speech_start_ms is None else self.speech_start_ms

    @property
    def speech_to(self) -> int:
        return self.end_ms if self.speech_end_ms is None else self.speech_end_ms


@dataclass
class Evidence:
    """One trial's recording, reduced to what the assertions read."""

    placed: dict[int, Placed]
    """step number → its clip, as heard"""
    segments: list[Segment]
    """the agent's speech (the shared VAD rules: 800 ms pauses merged)"""
    fine: list[Segment]
    """the agent's speech with pauses of `yield_gap_ms` ending a segment"""
    duration_ms: int
    not_run: set[int] = field(default_factory=set)
    """timed steps the schedule did not play (the agent had not started speaking)"""
    sounds: list[Segment] = field(default_factory=list)
    """loud sound on the agent's track that VAD does not call speech (a tone, hold music, a broken
    TTS's noise; `floorbench.audio.sounds`): the assertions read speech, so a silence or a yield
    this covers is not the agent's"""
    branches: dict[int, dict[str, Any]] = field(default_factory=dict)
    """branch step number → its decision as the timeline records it (rule, why, transcript, latencies)"""
    skipped: dict[int, int] = field(default_factory=dict)
    """step number → the branch step whose goto jumped over it"""
    lines: dict[int, list[Placed]] = field(default_factory=dict)
    """persona step number → each line it said, as heard (its `placed` spans them all)"""
    personas: dict[int, dict[str, Any]] = field(default_factory=dict)
    """persona step number → its records (``lines``, ``backchannels``, ``end``) as the timeline has them"""
    mos: list[float] | None = None
    """the predicted MOS (DNSMOS OVRL) of each scored agent turn (floorbench.scoring.quality); None: not scored"""
    language: str = "en"
    """what the call was held in: `contains` reads number words in it (floorbench.speech.languages)"""


@dataclass(frozen=True)
class Result:
    """One assertion on one trial."""

    key: str
    """stable over trials: ``step 2 responds_within_ms`` or ``test no_overlap_ms``"""
    check: str
    step: int | None
    expected: str
    passed: bool
    measured: str
    value: float | None = None
    """the measured number, where there is one (ms)"""

    def line(self) -> str:
        where = f"step {self.step}" if self.step is not None else "test"
        return f"{where}: {self.check} {self.expected}: measured {self.measured}"


NOT_PLAYED = "not played (the agent did not start speaking after the caller's turn)"


def next_turn_start(plan: Sequence[StepPlan], ev: Evidence, n: int) -> int:
    for st in plan[n:]:
        if st.kind in TURN_ENDS and st.n in ev.placed:
            return ev.placed[st.n].start_ms
    return ev.duration_ms
