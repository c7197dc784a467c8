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

The filler and the reply start at their first speech sample and end with
silence up to a whole output chunk (`trimmed`), and the reply is spoken the
moment the calls are done (not at the next input frame), so the silence
between them is the tool's, to a few ms: what `benchmarks/tools_dead_air.py`
measures `dead_air_ms` against. (A sound that ended inside a chunk would wait
in pipecat's output transport for the next one: the filler's last 20 ms were
sent just before the answer, measured.)
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
CHUNK_MS = 40
"""pipecat's output transport sends audio in chunks of this many ms (4 × 10 ms) and holds a part-chunk back"""


def trimmed(pcm: np.ndarray, rate: int) -> np.ndarray:
    """From the first speech sample (`floorbench.audio.edges.clip_speech`, the voices' own trimming rule) to
    the last, then digital silence to a whole `CHUNK_MS` chunk."""
    from floorbench.audio.edges import clip_speech

    edges = clip_speech(pcm, rate)
    if edges is None:
        return pcm
    speech = pcm[edges[0]: edges[1]]
    chunk = rate * CHUNK_MS // 1000
    return np.concatenate([speech, np.zeros(-len(speech) % chunk, dtype=pcm.dtype)])


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
            self.pending = asyncio.create_task(self._call_then_answer(self.calls[k0]))
            await self.speak(self.filler, f"filler after {k0}")

    async def _call_then_answer(self, calls: list[dict[str, Any]]) -> None:
        """The calls, then the held reply at once (unless the caller spoke meanwhile: a barge-in)."""
        await self._call_all(calls)
        if self.held is None:
            return
        k0, reply = self.held
        self.held = None
        heard_more = self.k > k0 + 1 or self.segment_end is not None
        if reply is not None and not heard_more:
            await self.speak(trimmed(reply[1], self.out_rate), reply[2] + " (after its tools)")

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


Lengthen = Callable[[list[dict[str, Any]], OracleSettings, int], None]
"""makes the replies in an oracle's segments long enough for the steps timed against them
(`floorbench.suites.agent.oracle.lengthen_replies`, given by the oracle's plan: this module stays below it)"""


def factory(calls: dict[int, list[dict[str, Any]]], lengthen: Lengthen | None = None
            ) -> Callable[[list[dict[str, Any]], OracleSettings, int], OracleProcessor]:
    """The oracle plan's `processor`: the stock oracle's listening (its replies lengthened by `lengthen`
    as the stock oracle's plan does), with the test's calls between turns."""

    def make(segments: list[dict[str, Any]], settings: OracleSettings, out_rate: int) -> OracleProcessor:
        if lengthen is not None:
            lengthen(segments, settings, out_rate)
        from floorbench.speech.tts import synthesize

        filler = trimmed(synthesize(FILLER, settings.voice, out_rate), out_rate)
        return ToolOracleProcessor(segments, calls, os.environ.get(TOOLS_URL_ENV), filler,
                                   response_delay_ms=settings.response_delay_ms, n4_wait_ms=settings.n4_wait_ms,
                                   out_rate=out_rate)

    return make
