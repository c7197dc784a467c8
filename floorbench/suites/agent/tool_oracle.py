"""The `oracle` reference agent with tools: it makes the calls a test expects, so the tool assertions
are checked against an agent known to be right.

After a caller clip whose step expects calls (its ``calls_tool``, and the
test's ``calls_tool`` with ``after`` that step), the oracle — when it would
have answered (`response_delay_ms` after the clip's end as it heard it) — says
a short filler and makes each call, one
after the other, over the mock's plain HTTP endpoint (`TOOLS_URL_ENV` in its
environment); a call that fails is made once more (the recovery a test with a
tool error asks of an agent). When the calls are done it says the step's reply
— unless the caller spoke meanwhile (a barge-in during the call): then the
reply is dropped, as an interrupted agent drops it. The arguments are the
expected ones (`floorbench.tools.expect.oracle_arguments`).

The filler and the reply are trimmed of the voice's leading and trailing
silence, so the silence between them is the tool's, to the sample: what
`benchmarks/tools_dead_air.py` measures `dead_air_ms` against.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from floorbench.processors.reference import OracleProcessor, OracleSettings
from floorbench.suites.agent.schema import AgentScenario
from floorbench.tools.env import TOOLS_URL_ENV
from floorbench.tools.expect import oracle_arguments

FILLER = "One moment, let me check."
QUIET = 300
"""int16 level under which the voice's edges count as silence (trimmed)"""


def trimmed(pcm: np.ndarray) -> np.ndarray:
    loud = np.nonzero(np.abs(pcm.astype(np.int32)) > QUIET)[0]
    return pcm[loud[0]: loud[-1] + 1] if len(loud) else pcm


def expected_calls(s: AgentScenario, path: list[tuple[int, int, str | None]]) -> dict[int, list[dict[str, Any]]]:
    """Path index (the oracle's clip order) → the calls it makes after that clip: (name, arguments)."""
    out: dict[int, list[dict[str, Any]]] = {}
    for i, (k, _, _) in enumerate(path):
        st = s.steps[k]
        specs = list(st.expect.calls_tool) + [c for c in s.expect.calls_tool if c.get("after") == st.n]
        if specs:
            out[i] = [{"name": c["name"], "arguments": oracle_arguments(dict(c.get("arguments") or {}))} for c in specs]
    return out


class ToolOracleProcessor(OracleProcessor):
    """`OracleProcessor` that calls the test's tools between a caller's turn and its reply."""

    def __init__(self, segments: list[dict[str, Any]], calls: dict[int, list[dict[str, Any]]], url: str | None,
                 filler: np.ndarray, **kw: Any) -> None:
        super().__init__(segments, **kw)
        self.calls = calls
        self.url = url
        self.filler = filler
        self.pending: asyncio.Task[None] | None = None
        self.held: tuple[int, tuple[int, np.ndarray, str] | None] | None = None
        self.call_at: tuple[int, int] | None = None
        """(received sample, clip index): when to say the filler and start the calls"""

    async def on_samples(self, received: int) -> None:
        k = self.k
        await super().on_samples(received)
        if self.k > k and self.calls.get(k):  # clip k has just ended, and the test expects calls after it
            self.held = (k, self.speak_at)
            self.speak_at = None
            self.call_at = (self.search_from + self.delay, k)  # when the stock oracle would have answered
        if self.call_at is not None and received >= self.call_at[0]:
            k0 = self.call_at[1]
            self.call_at = None
            self.pending = asyncio.create_task(self._call_all(self.calls[k0]))
            await self.speak(self.filler, f"filler after {k0}")
        if self.pending is not None and self.pending.done() and self.held is not None:
            self.pending = None
            k0, reply = self.held
            self.held = None
            heard_more = self.k > k0 + 1 or self.segment_end is not None  # the caller spoke meanwhile
            if reply is not None and not heard_more:
                await self.speak(trimmed(reply[1]), reply[2] + " (after its tools)")

    async def _call_all(self, calls: list[dict[str, Any]]) -> None:
        import aiohttp

        if not self.url:
            self.log.append({"event": "tools", "why": f"no {TOOLS_URL_ENV} in the environment"})
            return
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=70)) as http:
            for c in calls:
                for _attempt in range(2):  # a failed call is made once more
                    try:
                        async with http.post(f"{self.url}/tools/{c['name']}", json=c["arguments"]) as r:
                            await r.read()
                            if r.status == 200:
                                break
                    except (aiohttp.ClientError, TimeoutError) as e:
                        self.log.append({"event": "tools", "why": f"{c['name']}: {e}"})


def factory(calls: dict[int, list[dict[str, Any]]], needs: dict[int, Any] | None = None
            ) -> Callable[[list[dict[str, Any]], OracleSettings, int], OracleProcessor]:
    """The oracle plan's `processor`: the stock oracle's listening (its replies made long enough for the
    steps timed against them, `needs`), with the test's calls between turns."""

    def make(segments: list[dict[str, Any]], settings: OracleSettings, out_rate: int) -> OracleProcessor:
        if needs:  # lengthens the replies in `segments` as the stock oracle's plan does
            from floorbench.suites.agent.oracle import talking_through

            talking_through(segments, settings, out_rate, needs)
        from floorbench.speech.tts import synthesize

        filler = trimmed(synthesize(FILLER, settings.voice, out_rate))
        return ToolOracleProcessor(segments, calls, os.environ.get(TOOLS_URL_ENV), filler,
                                   response_delay_ms=settings.response_delay_ms, n4_wait_ms=settings.n4_wait_ms,
                                   out_rate=out_rate)

    return make
