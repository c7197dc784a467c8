"""The mock tool server of one trial: MCP (streamable HTTP) and plain HTTP JSON on one port.

Why one server per trial: each trial starts from the declared state and its
calls belong to its folder alone, so a trial's mock lives exactly as long as
its room. It listens on 127.0.0.1 (or the address the operator gives, for an
agent on another machine) on a port the kernel picks; the socket is bound and
listening before the agent is started, so its URL can be handed over at once
and a call that comes early waits in the backlog rather than failing.

Endpoints, for an agent to use whichever it speaks:

- ``POST /mcp``: the Model Context Protocol over streamable HTTP (the official
  SDK's low-level server, stateless, JSON responses): ``tools/list`` gives
  every declared tool with its JSON Schema, ``tools/call`` runs one;
- ``GET /tools``: the same list as JSON ``{"tools": [{name, description, parameters}]}``
  (the shape of an OpenAI function declaration);
- ``POST /tools/NAME`` with the arguments as a JSON object: ``{"result": …}``
  or, for a declared error, status 422 and ``{"error": "…"}``;
- ``GET /state``: the tools' state now (for a person debugging a test).

Every call is answered by `floorbench.tools.behaviour.ToolBackend` (the
declared responses, state and latency) and recorded with its start and end on
the scenario's session clock (`floorbench.tools.records`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

from floorbench.tools.behaviour import ToolBackend
from floorbench.tools.records import ToolCall, ToolsRecord
from floorbench.tools.spec import ToolSet

MS = 1_000_000


class ToolMock:
    """Serves one trial's tools; `bind` (sync: the URL at once), `start`, then `stop` for the record."""

    def __init__(self, tools: ToolSet, trial: int = 1, host: str = "127.0.0.1") -> None:
        self.tools = tools
        self.backend = ToolBackend(tools, trial)
        self.host = host
        self.calls: list[ToolCall] = []
        self.session_offset_ns = 0
        """session clock ns = time.monotonic_ns() + this (set by `use_clock`)"""
        self.on_call: Callable[[ToolCall], None] | None = None
        """told of each call once it has ended (the schedule writes its timeline line)"""
        self._sock: socket.socket | None = None
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self._url = ""
        self.in_flight = 0
        """calls being answered now"""

    @property
    def url(self) -> str:
        assert self._url, "bind() first"
        return self._url

    @property
    def mcp_url(self) -> str:
        return self.url + "/mcp"

    def use_clock(self, now_ns: Callable[[], int]) -> None:
        """Record on the clock `now_ns` reads (the scenario's session clock)."""
        self.session_offset_ns = now_ns() - time.monotonic_ns()

    def bind(self, port: int = 0) -> str:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, port))
        sock.listen(64)
        sock.setblocking(False)
        self._sock = sock
        self._url = f"http://{self.host}:{sock.getsockname()[1]}"
        return self._url

    async def call(self, name: str, args: dict[str, Any], via: str) -> ToolCall:
        """Answer one call after its latency; record it."""
        t0 = time.monotonic_ns()
        n = len(self.calls) + 1
        placeholder = ToolCall(n=n, tool=name, via=via, arguments=args, start_ms=0, end_ms=0, latency_ms=0)
        self.calls.append(placeholder)  # the call's number is its arrival's
        ans = self.backend.answer(name, args)
        wait_ns = t0 + ans.latency_ms * MS - time.monotonic_ns()
        self.in_flight += 1
        try:
            if wait_ns > 0:
                await asyncio.sleep(wait_ns / 1e9)
        finally:
            self.in_flight -= 1
        t1 = time.monotonic_ns()
        rec = placeholder.model_copy(update={
            "response": ans.response, "error": ans.error, "rule": ans.rule, "latency_ms": ans.latency_ms,
            "start_ms": (t0 + self.session_offset_ns) // MS, "end_ms": (t1 + self.session_offset_ns) // MS})
        self.calls[n - 1] = rec
        if self.on_call is not None:
            self.on_call(rec)
        return rec

    def record(self) -> ToolsRecord:
        return ToolsRecord(url=self._url, calls=list(self.calls),
                           state=self.backend.state, initial_state=self.tools.state)

    def _app(self) -> Any:
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        from floorbench.tools.mcp_app import mcp_server, transport_security

        async def list_tools(_: Request) -> JSONResponse:
            return JSONResponse({"tools": [{"name": t.name, "description": t.description, "parameters": t.parameters}
                                           for t in self.tools.tools]})

        async def call_tool(req: Request) -> JSONResponse:
            name = str(req.path_params["name"])
            try:
                args = json.loads(await req.body() or b"{}")
            except ValueError:
                return JSONResponse({"error": "the body must be a JSON object of arguments"}, status_code=400)
            if not isinstance(args, dict):
                return JSONResponse({"error": "the body must be a JSON object of arguments"}, status_code=400)
            rec = await self.call(name, args, "http")
            if rec.error is not None:
                return JSONResponse({"error": rec.error}, status_code=422)
            return JSONResponse({"result": rec.response})

        async def state(_: Request) -> JSONResponse:
            return JSONResponse(self.backend.state)

        server = mcp_server(self)
        routes = [Route("/tools", list_tools, methods=["GET"]), Route("/tools/{name}", call_tool, methods=["POST"]),
                  Route("/state", state, methods=["GET"])]
        return server.streamable_http_app(stateless_http=True, json_response=True, host=self.host,
                                          transport_security=transport_security(self.host),
                                          custom_starlette_routes=routes)

    async def start(self) -> None:
        """Serve on the bound socket (in this event loop) until `stop`."""
        import uvicorn

        if self._sock is None:
            self.bind()

        class Quiet(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self) -> Iterator[None]:  # the runner owns Ctrl-C, not the mock
                yield

        config = uvicorn.Config(self._app(), log_level="warning", lifespan="on", access_log=False)
        self._server = Quiet(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[self._sock]), name="tool-mock")
        for _ in range(200):
            if self._server.started or self._task.done():
                break
            await asyncio.sleep(0.01)
        if self._task.done():
            self._task.result()

    async def stop(self) -> ToolsRecord:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self._task), 5.0)
            if not self._task.done():
                self._task.cancel()
        if self._sock is not None:
            self._sock.close()
        return self.record()
