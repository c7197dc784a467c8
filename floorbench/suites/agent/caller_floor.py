"""What a caller step plays through: the reply it waits for, and the schedule's waits and clip writer.

The persona caller (`floorbench.suites.agent.persona_caller`) speaks when the
agent's turn is over, exactly as a scripted say does, so it uses the agent
schedule's own waits (`floorbench.suites.agent.schedule.AgentSchedule`). It
sees them only through `CallerFloor`, and the schedule's `Reply` lives here,
so the schedule may load the caller while the caller never loads the schedule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from floorbench.pipelines.room.schedule import Playback
from floorbench.suites.agent.rules import AgentRules
from floorbench.suites.agent.schema import AgentScenario, AgentStep


@dataclass
class Reply:
    """The agent's reply to the caller's last turn (or, before any, to the start of the call)."""

    since_ns: int
    onset_ns: int | None = None


class CallerFloor(Protocol):
    """The agent schedule as a caller step uses it (`AgentSchedule`; a caller never plays on its own)."""

    scenario: AgentScenario
    sr: int
    rules: AgentRules
    clip_audio: dict[int, np.ndarray]
    """clip number → its audio; a caller that makes its lines live puts each here before playing it"""

    def gap(self, st: AgentStep) -> int:
        """the silence, ms, that ends the agent's turn before step `st`"""
        ...

    def sample_at(self, pb: Playback, t_ns: int) -> int:
        """the caller track's sample that plays out at session time `t_ns`"""
        ...

    async def play(self, pb: Playback, st: AgentStep, at: int, why: str, clip: int | None = None,
                   **extra: object) -> tuple[int, int]:
        """play the step's clip (or `clip`) from sample `at`; (its end sample, its end ns)"""
        ...

    async def hear(self, audio: np.ndarray) -> tuple[str | None, str | None]:
        """the caller's ASR of the agent's speech: (text, error)"""
        ...

    async def until_heard(self, pb: Playback, t_ns: int) -> None:
        """wait until the room's VAD has heard up to `t_ns`"""
        ...

    async def onset(self, pb: Playback, reply: Reply, window_ms: int, not_before_ns: int = 0) -> int | None:
        """the onset of the agent's `reply`, waited for at most `window_ms` (None: it did not start)"""
        ...

    async def turn_over(self, pb: Playback, st: AgentStep | None, reply: Reply, gap_ms: int, wait_ms: int,
                        not_before: int = 0) -> None:
        """wait for the end of the agent's turn (`gap_ms` of silence) as a say does"""
        ...
