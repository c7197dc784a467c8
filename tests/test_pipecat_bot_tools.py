"""The pipecat example's tool call goes through pipecat's own function calling (examples/pipecat_bot/bot.py).

Its scripted LLM stand-in sits between pipecat's context aggregators, as an LLM service does. A user
message asking for an order is handed to it in the context (with the mock's tools as function schemas);
it says a filler and emits the call; pipecat runs the handler registered with ``register_function``
(which calls the floorbench mock over HTTP), broadcasts the result, the assistant aggregator adds it to
the context and runs the LLM again, and the stand-in says what came back. No audio, no models: the
pipeline is the aggregators and the LLM, driven with pipecat's own test runner. The example's live test
(tests/test_examples_live.py) plays the same through a room.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pipecat.frames.frames import LLMMessagesAppendFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.tests.utils import SleepFrame, run_test

from floorbench.tools.server import ToolMock
from floorbench.tools.spec import tool_set

BOT = Path(__file__).parents[1] / "examples" / "pipecat_bot" / "bot.py"
TOOLS = [{"name": "lookup_order", "description": "Look up an order by its number; returns its status.",
          "parameters": {"type": "object", "properties": {"order_id": {"type": "string", "pattern": "^[0-9]+$"}},
                         "required": ["order_id"]},
          "latency_ms": 100, "respond": [{"reads": "orders.{order_id}"}]}]


def bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pipecat_example_bot", BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def converse(said: str) -> tuple[list[Any], Any]:
    """The context after one user message (as pipecat's aggregators kept it) and the mock's record."""
    b = bot()
    mock = ToolMock(tool_set("t", TOOLS, {"orders": {"427": {"status": "delivered"}}}))
    mock.bind()
    await mock.start()
    try:
        tools = await b.declared_tools(mock.url)
        llm = b.ScriptedLLM()
        for tool in tools:
            llm.register_function(tool.name, b.tool_handler(mock.url))
        context = LLMContext(tools=b.ToolsSchema(standard_tools=tools))
        pair = LLMContextAggregatorPair(context, user_params=LLMUserAggregatorParams(user_turn_strategies=b.user_turns()))
        await run_test(Pipeline([pair.user(), llm, pair.assistant()]),
                       frames_to_send=[LLMMessagesAppendFrame(messages=[{"role": "user", "content": said}],
                                                              run_llm=True), SleepFrame(0.6)])
    finally:
        rec = await mock.stop()
    return context.get_messages(), rec


def test_the_stand_in_calls_the_mock_through_pipecats_function_calling() -> None:
    messages, rec = asyncio.run(converse("Hello, can you check my order number for two seven?"))
    user, filler, called, result, answer = messages
    assert user == {"role": "user", "content": "Hello, can you check my order number for two seven?"}
    assert filler == {"role": "assistant", "content": bot().FILLER}
    (call,) = called["tool_calls"]  # the call as the LLM emitted it, in the context
    assert call["function"]["name"] == "lookup_order" and json.loads(call["function"]["arguments"]) == {"order_id": "427"}
    assert result["role"] == "tool" and result["tool_call_id"] == call["id"]
    assert json.loads(result["content"]) == {"status": "delivered"}  # the handler's answer, from the mock
    assert answer == {"role": "assistant", "content": "Here is what I found: the status is delivered."}
    assert [(c.tool, c.via, c.arguments) for c in rec.calls] == [("lookup_order", "http", {"order_id": "427"})]


def test_without_a_fitting_tool_the_stand_in_answers_by_its_rules() -> None:
    messages, rec = asyncio.run(converse("Please say the word banana."))
    assert messages[1:] == [{"role": "assistant", "content": "Banana. You asked me to say banana."}]
    assert rec.calls == []
