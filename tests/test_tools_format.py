"""A test file's tools and tool assertions (docs/testing.md "Tools"): what loads, and one line per mistake.

Each bad input — a schema that is not JSON Schema, a canned response that breaks its tool's
returns_schema, a state that is not JSON, a tool name used twice, an assertion naming a tool
nobody declared — is one `AgentTestError` line naming the file, the test and the tool, raised
while the file is read (before any room).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from floorbench.suites.agent.validate import AgentTestError, load_test_file

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tools" / "tasks.yaml"

TOOL = """tools:
  - name: lookup_order
    description: Look up an order.
    parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    respond: [{reads: "orders.{order_id}"}]
"""
STATE = 'tool_state: {orders: {"427": {status: shipped}}}\n'
TEST = """tests:
  - name: t
    steps:
      - say: Where is my order?
        expect: {calls_tool: {name: lookup_order, arguments: {order_id: "427"}}}
"""


def error(tmp_path: Path, text: str) -> str:
    f = tmp_path / "t.yaml"
    f.write_text(text)
    with pytest.raises(AgentTestError) as e:
        load_test_file(f)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(f)), msg
    return msg


def test_the_shipped_task_set_loads_with_its_tools_and_assertions() -> None:
    tests = load_test_file(EXAMPLE)
    assert len(tests) >= 10
    assert all(t.tools is not None and t.tools.tools for t in tests)
    by = {t.name: t for t in tests}
    assert by["refund"].expect.tool_order == ["lookup_order", "refund_order"]
    own = by["barge-in-during-lookup"].tools
    slow = own.tool("lookup_order") if own is not None else None
    assert slow is not None and slow.latency_ms.ms == 2500  # the test's own tools replace the file's
    assert by["no-tool-needed"].expect.no_tool_call == ["*"]


def test_a_schema_that_is_not_json_schema(tmp_path: Path) -> None:
    msg = error(tmp_path, TOOL.replace("{type: object, properties:", "{type: objekt, properties:") + STATE + TEST)
    assert "tool 1 (lookup_order)" in msg and "not JSON Schema" in msg


def test_a_response_that_does_not_match_its_returns_schema(tmp_path: Path) -> None:
    tool = TOOL.replace('    respond: [{reads: "orders.{order_id}"}]\n',
                        "    returns_schema: {type: object, required: [status]}\n"
                        "    respond: [{returns: {state: shipped}}]\n")
    msg = error(tmp_path, tool + STATE + TEST)
    assert "respond 1" in msg and "returns_schema" in msg and "'status' is a required property" in msg


def test_a_state_that_is_not_json(tmp_path: Path) -> None:
    msg = error(tmp_path, TOOL + "tool_state: {orders: {427: {shipped: 2024-01-05}}}\n" + TEST)
    assert "tool_state is not JSON" in msg


def test_a_tool_name_used_twice(tmp_path: Path) -> None:
    twice = TOOL + "\n".join(TOOL.splitlines()[1:]) + "\n"
    msg = error(tmp_path, twice + STATE + TEST)
    assert "tool 2" in msg and "'lookup_order' is used twice" in msg


def test_an_assertion_naming_an_undeclared_tool(tmp_path: Path) -> None:
    msg = error(tmp_path, TOOL + STATE + TEST.replace("name: lookup_order", "name: lookup_ordr"))
    assert "test t: step 1 (say)" in msg and "no tool named 'lookup_ordr'" in msg and "tools: lookup_order" in msg


def test_a_tool_assertion_without_tools(tmp_path: Path) -> None:
    msg = error(tmp_path, TEST)
    assert "declares no tools" in msg


@pytest.mark.parametrize(("expect", "phrase"), [
    ("{calls_tool: {name: lookup_order, arguments: {order_id: {regex: '('}}}}", "not a regular expression"),
    ("{calls_tool: {name: lookup_order, match: fuzzy}}", "write subset or exact"),
    ("{calls_tool: {name: lookup_order, whenever: 1}}", "unknown key 'whenever'"),
    ("{no_tool_call: false}", "false asserts nothing"),
    ("{dead_air_ms: -5}", "give ms"),
    ("{final_state: {equals: {}}}", "does not apply to a say step"),
])
def test_bad_tool_assertions_are_one_line_each(tmp_path: Path, expect: str, phrase: str) -> None:
    text = TOOL + STATE + TEST.replace("{calls_tool: {name: lookup_order, arguments: {order_id: \"427\"}}}", expect)
    assert phrase in error(tmp_path, text)


@pytest.mark.parametrize(("expect", "phrase"), [
    ("{final_state: {is: {}}}", "equals: STATE"),
    ("{tool_order: lookup_order}", "at least two tools"),
    ("{calls_tool: {name: lookup_order, after: 9}}", "after 9"),
    ("{max_calls: {refund: 1}}", "no tool named 'refund'"),
    ("{waits_for_turn_end: true}", "does not apply to a test"),
])
def test_bad_test_level_tool_assertions(tmp_path: Path, expect: str, phrase: str) -> None:
    assert phrase in error(tmp_path, TOOL + STATE + TEST + f"    expect: {expect}\n")


def test_bad_latency_and_responses(tmp_path: Path) -> None:
    assert "latency_ms" in error(tmp_path, TOOL.replace("    respond:", "    latency_ms: {uniform: [900, 100]}\n    respond:")
                                 + STATE + TEST)
    assert "not both" in error(tmp_path, TOOL.replace('{reads: "orders.{order_id}"}', "{returns: 1, error: x}")
                               + STATE + TEST)
    assert "call's number" in error(tmp_path, TOOL.replace('{reads: "orders.{order_id}"}', "{call: 0, returns: 1}")
                                    + STATE + TEST)


@pytest.mark.parametrize("host", ["0.0.0.0", "example.com", "::1", "10.0.0"])
def test_tools_host_is_an_ipv4_address_of_this_machine(host: str) -> None:
    from floorbench.errors import OptionError
    from floorbench.suites.agent.commands import use_tools_host

    with pytest.raises(OptionError, match="--tools-host"):
        use_tools_host(host)
