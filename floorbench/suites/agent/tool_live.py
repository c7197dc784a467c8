"""A trial's mock tools, live: started before the agent, handed to it, recorded into the trial folder.

`start` binds the mock (`floorbench.tools.server.ToolMock`) while the room is
being planned, so its URL exists before the agent does: the model process gets
it in its environment (`TOOLS_URL_ENV`, `MCP_URL_ENV`), a dispatched LiveKit
Agents worker in the job's metadata (``tools_url``, ``mcp_url``), and an agent
that joins by itself in the line `--print-join` prints. Once the schedule runs,
each call is a ``tool`` line in timeline.jsonl as it ends, on the session clock;
when the room ends, ``tools.json`` holds every call, the state at the end and
the URL (`floorbench.tools.records`).

The mock listens on 127.0.0.1 unless the operator gives an address
(`floorbench test --tools-host`, or FLOORBENCH_TOOLS_HOST) for an agent on
another machine.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from floorbench.records import EventKind, write_json_atomic
from floorbench.tools.env import MCP_URL_ENV, TOOLS_HOST_ENV, TOOLS_URL_ENV
from floorbench.tools.records import TOOLS_FILE, ToolCall
from floorbench.tools.server import ToolMock
from floorbench.tools.spec import ToolSet

log = logging.getLogger(__name__)



class LiveTools:
    """One trial's mock, from the plan to the records."""

    def __init__(self, tools: ToolSet, trial: int, host: str) -> None:
        self.mock = ToolMock(tools, trial, host)
        self.mock.bind()
        self._start = asyncio.get_running_loop().create_task(self.mock.start(), name="tool-mock-start")
        self._pb: Any = None
        self._pending: list[ToolCall] = []
        self.closed = False

    def env(self) -> dict[str, str]:
        return {TOOLS_URL_ENV: self.mock.url, MCP_URL_ENV: self.mock.mcp_url}

    def attach(self, pb: Any) -> None:
        """Record on the playback's session clock and write each call to its timeline from now on."""
        self.mock.use_clock(pb.clock.now_ns)
        self._pb = pb
        self.mock.on_call = self._log
        for c in self._pending:
            self._log(c)
        self._pending.clear()

    def _log(self, c: ToolCall) -> None:
        if self._pb is None:
            self._pending.append(c)
            return
        self._pb.log(EventKind.tool, t_ms=c.start_ms, by="tools", n=c.n, tool=c.tool, via=c.via,
                     start_ms=c.start_ms, end_ms=c.end_ms, arguments=c.arguments, response=c.response,
                     error=c.error, latency_ms=c.latency_ms)

    async def until_idle(self, cap_ms: int) -> bool:
        """Wait (at most `cap_ms`) while a call is being answered; True if one was."""
        if self.mock.in_flight == 0:
            return False
        for _ in range(max(1, cap_ms // 20)):
            if self.mock.in_flight == 0:
                break
            await asyncio.sleep(0.02)
        return True

    async def close(self, folder: Path | None) -> None:
        """Stop serving; write tools.json into `folder` (once)."""
        if self.closed:
            return
        self.closed = True
        try:
            await asyncio.wait_for(asyncio.shield(self._start), 5.0)
        except Exception as e:  # it never served: the record says so by having no calls
            log.warning("tool mock did not start: %s", e)
        record = await self.mock.stop()
        if folder is not None:
            write_json_atomic(folder / TOOLS_FILE, record.model_dump(mode="json"))


def start(tools: ToolSet | None, trial: int, options: Mapping[str, Any]) -> LiveTools | None:
    """The trial's mock, bound and starting (None: the test declares no tools)."""
    if tools is None:
        return None
    host = str(options.get("tools_host") or os.environ.get(TOOLS_HOST_ENV) or "127.0.0.1")
    return LiveTools(tools, trial, host)
