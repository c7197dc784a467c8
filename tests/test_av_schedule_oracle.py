"""The av oracle's plan, without a room: what it says, which clips it searches for, when it yields.

The oracle counts time in received samples (16 kHz); these tests drive its
hooks directly with a capturing `push_frame`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
from pipecat.frames.frames import InterruptionFrame, OutputAudioRawFrame

from floorbench.scenarios.validate import load_scenario_file
from floorbench.suites.av.oracle import AvOracleProcessor, yield_after_ms

SUITE = Path(__file__).parent / "fixtures" / "suites" / "av-tiny"


def scenario(name: str) -> Any:
    return load_scenario_file(SUITE / "scenarios" / f"{name}.yaml", root=SUITE)


def test_only_a_must_yield_scenario_has_a_yield_time() -> None:
    raised = scenario("av003-raised-hand")
    assert yield_after_ms(raised) == raised.clip(2).offset_ms + raised.event.start_ms
    for other in ("av001-thinking-pause", "av002-nod", "av004-handoff-gaze", "av005-backchannel-invite"):
        assert yield_after_ms(scenario(other)) is None


class Captured(AvOracleProcessor):
    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.pushed: list[Any] = []

    async def push_frame(self, frame: Any, direction: Any = None) -> None:  # type: ignore[override]
        self.pushed.append(frame)


def test_the_oracle_stops_its_reply_when_the_must_yield_cue_is_due() -> None:
    async def go() -> Captured:
        p = Captured([], 400, 2400, out_rate=24000)
        p.received = 16000
        await p.speak(np.zeros(24000 * 6, dtype=np.int16), "reply")  # 6 s of reply from sample 16 000
        for received in range(16000, 16000 + 3 * 16000, 320):
            p.received = received
            await p.on_samples(received)
        return p

    p = asyncio.run(go())
    assert isinstance(p.pushed[0], OutputAudioRawFrame)
    assert [type(f) for f in p.pushed[1:]] == [InterruptionFrame]
    assert p.log[-1]["why"] == "must_yield cue due" and not p.speaking
    # stopped at 2.4 s after its onset, to the 20 ms frame
    assert p.speaking_until == 16000 + 2400 * 16


def test_without_a_must_yield_cue_the_oracle_talks_on() -> None:
    async def go() -> Captured:
        p = Captured([], 400, None, out_rate=24000)
        await p.speak(np.zeros(24000 * 6, dtype=np.int16), "reply")
        for received in range(0, 5 * 16000, 320):
            p.received = received
            await p.on_samples(received)
        return p

    p = asyncio.run(go())
    assert [type(f) for f in p.pushed] == [OutputAudioRawFrame] and p.speaking
