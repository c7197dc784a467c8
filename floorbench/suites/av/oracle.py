"""The oracle on suite `av` (docs/suites/av.md): what a system that sees and hears perfectly would do.

It reads the scenario (never the room's video) and, per the event's category:

- after the request clip it says that clip's `reply` (long enough to talk
  through the cue), and keeps talking through a ``keep_talking`` cue (a nod,
  a smile, a laugh);
- at a ``must_yield`` cue (a raised hand, a head shake) it stops: the cue
  leaves the playback `offset_ms` after the oracle's onset *as heard there*,
  so the oracle, counting from its own onset in received samples, stops at
  ``offset_ms + event.start_ms`` after it, which is at or a little before
  the moment the cue reaches the room (the room's delays only make the cue
  later) — it never needs to see the hand;
- at a ``smooth_handoff`` it takes the floor with that clip's reply when the
  window opens (the hand-over cue), not when the clip's silent tail ends;
- in a ``stay_silent`` pause and at a ``backchannel`` invitation it says nothing.

Clips timed against the model's speech are not searched for in the room audio
(a wordless cue has nothing to find); every other clip is found as the mpe and
turns oracles find theirs (`reference.OracleProcessor`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from floorbench.audio.vad import VAD_RATE
from floorbench.processors.reference import OracleClip, OraclePlan, OracleProcessor, OracleSettings
from floorbench.suites.av.rules import Category, category_of


def yield_after_ms(scenario: Any) -> int | None:
    """For a must_yield scenario: how long after its onset the oracle stops (cue offset + window start)."""
    event = scenario.event
    if category_of(event.dynamic) is not Category.must_yield:
        return None
    cue = scenario.clip(event.clip)
    return int(cue.offset_ms or 0) + int(event.start_ms)


def handoff_ms(scenario: Any, clip: Any) -> int | None:
    """For the clip of a smooth_handoff event: where in the clip the turn is handed over (the window's
    start), so the oracle answers then; None for every other clip.

    The clip's sound goes on past the hand-over (the silent look or gesture that hands the turn over): a
    system that sees answers when the cue comes, not when the clip's audio file ends.
    """
    event = getattr(scenario, "event", None)
    if event is None or event.clip != clip.id or category_of(event.dynamic) is not Category.smooth_handoff:
        return None
    return int(event.start_ms)


class AvOracleProcessor(OracleProcessor):
    """`OracleProcessor` plus the must_yield stop, counted from its own onset in received samples."""

    def __init__(
        self, segments: list[dict[str, Any]], response_delay_ms: int, yield_after: int | None, **kw: Any
    ):
        super().__init__(segments, response_delay_ms, **kw)
        self.yield_after = None if yield_after is None else yield_after * VAD_RATE // 1000
        self.cue_at: int | None = None
        """received-sample index where the must_yield cue is due, once the oracle has spoken"""

    async def speak(self, pcm: np.ndarray, what: str) -> None:
        if self.yield_after is not None and self.cue_at is None:
            self.cue_at = self.received + self.yield_after
        await super().speak(pcm, what)

    async def on_samples(self, received: int) -> None:
        if self.cue_at is not None and received >= self.cue_at:
            self.cue_at, self.yield_after = None, None
            self.speak_at = None
            if self.speaking:
                await self.stop_speaking("must_yield cue due")
        await super().on_samples(received)


def oracle(scenario: Any, suite: Any, settings: OracleSettings) -> OraclePlan:
    """Suite av's part `oracle` (floorbench.plugins): each clip's `reply`, handed over where
    the event window opens; clips timed to the model are not listened for; it stops at a must_yield cue."""
    clips = [
        OracleClip(str(c.label), c.audio, getattr(c, "reply", None), handoff_ms(scenario, c))
        for c in scenario.turns
        if getattr(c, "offset_ms", None) is None
    ]
    yield_after = yield_after_ms(scenario)

    def processor(segments: list[dict[str, Any]], s: OracleSettings, out_rate: int) -> AvOracleProcessor:
        return AvOracleProcessor(segments, s.response_delay_ms, yield_after, out_rate=out_rate)

    return OraclePlan(clips, processor)
