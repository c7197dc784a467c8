"""The cascade's tool use (cascade_tools): its slot filler, its rules calling the real mock, and an LLM's tool calls.

The mock is floorbench's own (floorbench.tools.server on 127.0.0.1) serving the
example task set's tools with their latency removed; the LLM is a loopback
stand-in of an OpenAI-compatible endpoint (a fake for that one component) that
asks for a tool call and then answers from the tool's result.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from aiohttp import web

from floorbench.processors.cascade_llm import LLMResponder
from floorbench.processors.cascade_tools import Tool, ToolRules, fetch_tools, fill_arguments
from floorbench.tools.server import ToolMock
from floorbench.tools.spec import tool_set

TASKS = yaml.safe_load((Path(__file__).parents[1] / "examples/tools/tasks.yaml").read_text())


def declared(errors_first: bool = False) -> list[dict]:
    tools = [{k: v for k, v in t.items() if k != "latency_ms"} for t in TASKS["tools"]]
    if errors_first:
        tools[0] = {**tools[0], "respond": [{"call": 1, "error": "database timeout"}, *tools[0]["respond"]]}
    return tools


def as_tools() -> list[Tool]:
    return [Tool(t["name"], t.get("description", ""), t.get("parameters") or {}) for t in TASKS["tools"]]


@pytest.mark.parametrize(
    ("said", "before", "tool", "arguments"),
    [
        ("Hello, where is my order four two seven?", None, "lookup_order", {"order_id": "427"}),
        ("Can you check order five one eight for me?", None, "lookup_order", {"order_id": "518"}),
        ("Hello, where is my order for two seven?", None, "lookup_order", {"order_id": "427"}),  # ASR's "for"
        # a refund needs an amount it did not hear: the order is looked up first
        ("I would like a refund for order four two seven.", None, "lookup_order", {"order_id": "427"}),
        ("My email is ada at example dot com, I want to return my kettle.", None, "find_customer",
         {"email": "ada@example.com"}),
        ("I need an appointment on Monday.", None, "find_slots", {"day": "monday"}),
        ("Yes, two thirty is fine. My name is Ada.", "I need an appointment on Monday.", "book_appointment",
         {"day": "monday", "time": "14:30", "name": "Ada"}),
        ("Yes, nine fifteen.", "Please move my booking B twelve to Tuesday.", "change_appointment",
         {"booking_id": "B12", "day": "tuesday", "time": "09:15"}),
        ("Yes, 915.", "Please move my booking be 12 to Tuesday.", "change_appointment",  # as ASR wrote them
         {"booking_id": "B12", "day": "tuesday", "time": "09:15"}),
        ("Yes, 230 is fine. My name is Ada.", "I need an appointment on Monday.", "book_appointment",
         {"day": "monday", "time": "14:30", "name": "Ada"}),
        # a move without its time: the free times are looked up (find_slots tells a time), not a cancel
        ("Please move my booking B twelve to Tuesday.", None, "find_slots", {"day": "tuesday"}),
        ("Cancel my appointment B twelve please.", None, "cancel_appointment", {"booking_id": "B12"}),
        ("Cancel my appointment, be 12 please.", None, "cancel_appointment", {"booking_id": "B12"}),  # ASR's "be"
        ("What are your opening hours?", None, None, None),
    ],
)
def test_the_rules_pick_a_tool_and_fill_its_arguments_from_the_schema(said, before, tool, arguments) -> None:
    rules = ToolRules("http://unused", as_tools())
    if before and (earlier := rules.plan(before)):  # the earlier turn's call was made
        rules.done.append((earlier.tool.name, earlier.arguments))
    plan = rules.plan(said, before)
    assert (plan.tool.name, plan.arguments) == (tool, arguments) if plan else tool is None


def test_a_pattern_in_the_schema_rejects_a_value_that_breaks_it() -> None:
    t = Tool("lookup_order", "Look up an order.",
             {"type": "object", "properties": {"order_id": {"type": "string", "pattern": "^[0-9]{4}$"}},
              "required": ["order_id"]})
    assert fill_arguments(t, "order four two seven") is None
    assert fill_arguments(t, "order four two seven one") == {"order_id": "4271"}


async def test_the_rules_call_the_mock_and_speak_its_answer_retrying_after_an_error() -> None:
    mock = ToolMock(tool_set("t", declared(errors_first=True), TASKS["tool_state"]))
    mock.bind()
    await mock.start()
    try:
        rules = ToolRules(mock.url, await fetch_tools(mock.url))
        assert [t.name for t in rules.tools] == [t["name"] for t in TASKS["tools"]]
        plan = rules.plan("Where is my order four two seven?")
        assert plan is not None
        said = await rules.run(plan)
        assert "shipped" in said and "blue kettle" in said
        # the same request again right after is not called twice
        assert rules.plan("Where is my order four two seven?") is None
        refused = await rules.run(rules.plan("Cancel my booking B nine please.") or pytest.fail("no plan"))
        assert refused.startswith("Sorry, I could not do that")  # the declared `otherwise`, said
    finally:
        rec = await mock.stop()
    assert [(c.tool, c.arguments, c.error) for c in rec.calls][:2] == [
        ("lookup_order", {"order_id": "427"}, "database timeout"), ("lookup_order", {"order_id": "427"}, None)]
    assert rec.calls[2].tool == "cancel_appointment" and rec.calls[2].arguments == {"booking_id": "B9"}


async def test_an_llm_tool_call_is_run_on_the_mock_and_its_result_handed_back() -> None:
    seen: list[dict] = []

    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(body)
        last = body["messages"][-1]
        if last["role"] == "tool":
            status = json.loads(last["content"])["result"]["status"]
            return web.json_response({"choices": [{"message": {"role": "assistant", "content": f"It has {status}."}}]})
        call = {"id": "c1", "type": "function",
                "function": {"name": "lookup_order", "arguments": json.dumps({"order_id": "427"})}}
        return web.json_response({"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]}}]})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    mock = ToolMock(tool_set("t", declared(), TASKS["tool_state"]))
    mock.bind()
    await mock.start()
    try:
        llm = LLMResponder.from_config({"base_url": f"http://127.0.0.1:{port}/v1", "model": "tiny"}, "cascade")
        llm.tools = ToolRules(mock.url, await fetch_tools(mock.url))
        text, _ = await llm.reply("Aria", [], [], "Where is my order four two seven?")
        assert text == "It has shipped."
    finally:
        rec = await mock.stop()
        await runner.cleanup()
    fns = [t["function"]["name"] for t in seen[0]["tools"]]
    assert fns[0] == "lookup_order" and seen[0]["tools"][0]["function"]["parameters"]["required"] == ["order_id"]
    assert seen[1]["messages"][-2]["tool_calls"][0]["id"] == "c1" and seen[1]["messages"][-1]["tool_call_id"] == "c1"
    assert [(c.tool, c.arguments, c.via) for c in rec.calls] == [("lookup_order", {"order_id": "427"}, "http")]


def test_the_webrtc_bridge_hands_the_tools_to_a_loopback_pipecat_bot_only(monkeypatch) -> None:
    from floorbench.processors.webrtc_signalling import PipecatSignalling

    monkeypatch.setenv("FLOORBENCH_TOOLS_URL", "http://127.0.0.1:5123")
    monkeypatch.setenv("FLOORBENCH_MCP_URL", "http://127.0.0.1:5123/mcp")
    local = PipecatSignalling("http://127.0.0.1:7860/api/offer", options={"request_data": {"lang": "en"}})
    assert local._body("v=0")["requestData"] == {
        "tools_url": "http://127.0.0.1:5123", "mcp_url": "http://127.0.0.1:5123/mcp", "lang": "en"}
    assert "requestData" not in PipecatSignalling("https://bot.example.com/api/offer")._body("v=0")
    monkeypatch.delenv("FLOORBENCH_TOOLS_URL")
    assert "requestData" not in PipecatSignalling("http://127.0.0.1:7860/api/offer")._body("v=0")
