"""The mock tools (floorbench.tools): deterministic answers, state per trial, seeded latency, and the server.

The server is the real one (uvicorn, the MCP SDK's low-level server, Starlette routes) on
127.0.0.1: a plain HTTP call and an MCP call each reach the same backend, are recorded with
start and end on the clock given, and a declared error reaches an MCP client as a tool error.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import aiohttp

from floorbench.tools.behaviour import ToolBackend, draw_ms
from floorbench.tools.records import read_tools
from floorbench.tools.spec import Latency, tool_set

ORDERS = {"orders": {"427": {"status": "shipped"}, "9": {"status": "processing"}}}
TOOLS = [
    {"name": "lookup_order", "description": "Look up an order.",
     "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
     "latency_ms": 120, "respond": [{"call": 1, "error": "database timeout"}, {"reads": "orders.{order_id}"}]},
    {"name": "refund", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
     "respond": [{"when": {"order_id": "427"}, "returns": {"ok": True}, "sets": {"orders.{order_id}.status": "refunded"},
                  "appends": {"log": "{order_id}"}}],
     "otherwise": {"error": "cannot refund {order_id}"}},
]


def test_responses_are_chosen_by_call_number_and_arguments_and_write_the_state() -> None:
    ts = tool_set("t", TOOLS, ORDERS)
    b = ToolBackend(ts)
    assert b.answer("lookup_order", {"order_id": "427"}).error == "database timeout"  # the first call fails
    assert b.answer("lookup_order", {"order_id": "427"}).response == {"status": "shipped"}
    assert b.answer("lookup_order", {"order_id": "1"}).error == "not found: orders.1"
    assert "invalid arguments" in str(b.answer("lookup_order", {"order_id": 427}).error)
    assert b.answer("refund", {"order_id": "9"}).error == "cannot refund 9"
    assert b.answer("refund", {"order_id": "427"}).response == {"ok": True}
    assert b.state["orders"]["427"]["status"] == "refunded" and b.state["log"] == ["427"]
    assert ToolBackend(ts).state == ORDERS  # a fresh trial starts from the declared state
    assert ts.state == ORDERS


def test_a_drawn_latency_is_the_same_for_the_same_trial_and_call() -> None:
    lat = Latency(normal=(800, 200))
    a = [draw_ms(lat, 7, 1, "x", n) for n in range(1, 50)]
    assert a == [draw_ms(lat, 7, 1, "x", n) for n in range(1, 50)]
    assert a != [draw_ms(lat, 7, 2, "x", n) for n in range(1, 50)]
    assert 600 < sorted(a)[len(a) // 2] < 1000
    u = [draw_ms(Latency(uniform=(200, 300)), 0, 1, "x", n) for n in range(1, 100)]
    assert min(u) >= 200 and max(u) <= 300


def test_the_server_answers_http_and_mcp_and_records_each_call_on_the_clock() -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from floorbench.tools.server import ToolMock

    async def main() -> None:
        mock = ToolMock(tool_set("t", TOOLS, ORDERS))
        mock.bind()
        origin = time.monotonic_ns() - 5_000_000_000  # a session clock 5 s old
        mock.use_clock(lambda: time.monotonic_ns() - origin)
        await mock.start()
        async with aiohttp.ClientSession() as http:
            tools = await (await http.get(mock.url + "/tools")).json()
            assert [t["name"] for t in tools["tools"]] == ["lookup_order", "refund"]
            r = await http.post(mock.url + "/tools/lookup_order", json={"order_id": "427"})
            assert r.status == 422 and (await r.json()) == {"error": "database timeout"}
        async with streamable_http_client(mock.mcp_url) as (rd, wr, *_):
            async with ClientSession(rd, wr) as cs:
                await cs.initialize()
                listed = await cs.list_tools()
                assert listed.tools[0].input_schema["required"] == ["order_id"]
                ok = await cs.call_tool("lookup_order", {"order_id": "427"})
                assert not ok.is_error and ok.structured_content == {"status": "shipped"}
                bad = await cs.call_tool("refund", {"order_id": "9"})
                assert bad.is_error
        rec = await mock.stop()
        assert [(c.tool, c.via, c.error) for c in rec.calls] == [
            ("lookup_order", "http", "database timeout"), ("lookup_order", "mcp", None), ("refund", "mcp", "cannot refund 9")]
        first = rec.calls[0]
        assert 5000 <= first.start_ms < 15000 and first.end_ms - first.start_ms >= 120  # its latency, on that clock
        assert rec.state == ORDERS and rec.url == mock.url

    asyncio.run(asyncio.wait_for(main(), 30))


def test_a_trials_mock_is_handed_over_and_leaves_its_records(tmp_path: Path) -> None:
    from floorbench.records import EventKind
    from floorbench.suites.agent import tool_live

    class Clock:
        def now_ns(self) -> int:
            return time.monotonic_ns() - origin

    class Playback:  # what the schedule hands the mock: a session clock and the timeline
        def __init__(self) -> None:
            self.clock = Clock()
            self.lines: list[tuple[EventKind, dict[str, object]]] = []

        def log(self, kind: EventKind, **fields: object) -> None:
            self.lines.append((kind, fields))

    origin = time.monotonic_ns() - 2_000_000_000

    async def main() -> None:
        live = tool_live.start(tool_set("t", TOOLS, ORDERS), 1, {})
        assert live is not None
        env = live.env()
        assert env[tool_live.MCP_URL_ENV] == env[tool_live.TOOLS_URL_ENV] + "/mcp"
        assert env[tool_live.TOOLS_URL_ENV].startswith("http://127.0.0.1:")
        pb = Playback()
        live.attach(pb)
        await asyncio.sleep(0.2)  # serving starts on the loop
        async with aiohttp.ClientSession() as http:
            r = await http.post(env[tool_live.TOOLS_URL_ENV] + "/tools/refund", json={"order_id": "427"})
            assert r.status == 200 and (await r.json()) == {"result": {"ok": True}}
        await live.close(tmp_path)
        [(kind, line)] = pb.lines
        assert kind is EventKind.tool and line["tool"] == "refund" and int(str(line["start_ms"])) >= 2000
        rec = read_tools(tmp_path)
        assert rec is not None and rec.calls[0].response == {"ok": True}
        assert rec.state["orders"]["427"]["status"] == "refunded" and rec.initial_state == ORDERS
        assert tool_live.start(None, 1, {}) is None  # a test without tools has no mock

    asyncio.run(asyncio.wait_for(main(), 30))
