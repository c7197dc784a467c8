"""A test file's tools and tool assertions, read into suite `agent`'s records (docs/testing.md "Tools").

`test_tools` reads ``tools:`` and ``tool_state:`` (the file's, or the test's
own, which replace them) into a `ToolSet`; `set_tool_check` reads one tool
assertion into an `Expect`; `check_names` then makes sure every tool an
assertion names is declared. Each problem is one `AgentTestError` line naming
the file, the test, the step and the tool.
"""

from __future__ import annotations

from typing import Any

from floorbench.suites.agent.rules import ToolCheck
from floorbench.suites.agent.schema import AgentStep, Expect
from floorbench.tools import expect as tx
from floorbench.tools.spec import ToolSet, ToolSpecError, tool_set

FILE_KEYS = ("tools", "tool_state", "tool_seed")
"""keys a test file (and a test) may carry for its tools"""


def test_tools(where: str, raw: dict[str, Any], defaults: dict[str, Any], error: type[Exception]) -> ToolSet | None:
    """The test's tools: its own ``tools``/``tool_state``/``tool_seed``, else the file's; None: no tools."""
    tools = raw["tools"] if "tools" in raw else defaults.get("tools")
    state = raw["tool_state"] if "tool_state" in raw else defaults.get("tool_state")
    seed = raw["tool_seed"] if "tool_seed" in raw else defaults.get("tool_seed", 0)
    if tools is None and state is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise error(f"{where}: tool_seed must be a whole number, got {seed!r}")
    try:
        return tool_set(where, tools, state, seed or 0)
    except ToolSpecError as e:
        raise error(str(e)) from None


def is_tool_check(key: object) -> bool:
    return isinstance(key, str) and key in ToolCheck.__members__


def set_tool_check(out: Expect, where: str, key: str, value: object, allowed: frozenset[ToolCheck],
                   what: str, steps: int | None, error: type[Exception]) -> None:
    """Read one tool assertion into `out` (names are checked by `check_names`); `steps`: the test's
    number of steps for a test's assertion, None for a step's."""
    check = ToolCheck(key)
    if check not in allowed:
        raise error(f"{where}: does not apply to {what}; there use {', '.join(sorted(c.value for c in allowed))}")
    try:
        if check is ToolCheck.calls_tool:
            out.calls_tool = tx.calls_tool(where, value, None, steps)
        elif check is ToolCheck.no_tool_call:
            out.no_tool_call = tx.no_tool_call(where, value, None)
        elif check is ToolCheck.tool_order:
            out.tool_order = tx.tool_order(where, value, None)
        elif check is ToolCheck.max_calls:
            out.max_calls = tx.max_calls(where, value, None)
        elif check is ToolCheck.final_state:
            out.final_state = tx.final_state(where, value)
        elif check is ToolCheck.waits_for_turn_end:
            if value is not True:
                raise tx.ToolExpectError(f"{where}: write waits_for_turn_end: true, or drop it")
            out.waits_for_turn_end = True
        else:
            setattr(out, check.value, tx._ms(where, value))
    except tx.ToolExpectError as e:
        raise error(str(e)) from None


def named(e: Expect) -> list[tuple[str, str]]:
    """(assertion, tool name) for every tool an expectation names."""
    out = [("calls_tool", str(c["name"])) for c in e.calls_tool]
    out += [("no_tool_call", n) for n in e.no_tool_call if n != tx.ANY_TOOL]
    out += [("tool_order", n) for n in e.tool_order]
    out += [("max_calls", n) for n in e.max_calls or {} if n != tx.ANY_TOOL]
    return out


def uses_tools(e: Expect) -> bool:
    return any(getattr(e, c.value) not in (None, [], {}) for c in ToolCheck)


def check_names(where: str, steps: list[AgentStep], expect: Expect, tools: ToolSet | None,
                error: type[Exception]) -> None:
    """Every tool an assertion names is declared; a tool assertion needs tools at all."""
    known = tools.names if tools is not None else []
    places = [(f"{where}: step {s.n} ({s.kind}): expect", s.expect) for s in steps] + [(f"{where}: expect", expect)]
    for at, e in places:
        if uses_tools(e) and tools is None:
            raise error(f"{at}: a tool assertion, but the test declares no tools; add tools: (and tool_state:) "
                        "to the test or the file")
        for check, name in named(e):
            if name not in known:
                raise error(f"{at}: {check}: no tool named {name!r} is declared (tools: {', '.join(known) or 'none'}); "
                            "declare it under tools: or fix the name")
