"""The tool assertions as a test file writes them, checked, and how a call's arguments are matched.

Written under a step's or the test's ``expect:`` (docs/testing.md "Tools"):

- ``calls_tool: NAME`` or ``{name, arguments, match, after, within_ms}`` (or a list of them);
  an argument's expected value is a literal, ``{regex: R}`` or ``{approx: X, tol: T}``;
  ``match: subset`` (default: the call has at least these arguments) or ``exact``;
- ``no_tool_call: true`` (no call at all) or a name or a list of names;
- ``tool_order: [A, B, …]``, ``max_calls: N`` or ``{NAME: N}``, ``final_state: {equals | contains: …}``;
- ``dead_air_ms``, ``filler_within_ms``, ``answers_within_ms`` (ms), ``waits_for_turn_end: true``.

Every problem is one line (`ToolExpectError`), and a name no tool of the test
declares is one too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

ANY_TOOL = "*"
MATCH = ("subset", "exact")
CALL_KEYS = ("name", "arguments", "match", "after", "within_ms")
MAX_MS = 120_000


class ToolExpectError(ValueError):
    """A tool assertion breaks the format; one line naming where and the fix."""


def _names(where: str, value: object, known: list[str] | None) -> list[str]:
    """Tool names; each one declared (`known`; None: checked later, once the test's tools are known)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(x, str) for x in items):
        raise ToolExpectError(f"{where}: give a tool's name or a list of names")
    for x in items:
        if known is not None and x not in known:
            raise ToolExpectError(f"{where}: no tool named {x!r} is declared (tools: {', '.join(known) or 'none'}); "
                                  "declare it under tools: or fix the name")
    return [str(x) for x in items]


def _ms(where: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_MS:
        raise ToolExpectError(f"{where}: give ms (0–{MAX_MS}), got {value!r}")
    return value


def _expected_value(where: str, value: object) -> None:
    if isinstance(value, dict) and "regex" in value:
        if set(value) != {"regex"} or not isinstance(value["regex"], str):
            raise ToolExpectError(f"{where}: write {{regex: PATTERN}} alone")
        try:
            re.compile(value["regex"])
        except re.error as e:
            raise ToolExpectError(f"{where}: not a regular expression ({e}); fix it") from None
    elif isinstance(value, dict) and "approx" in value:
        ok = set(value) <= {"approx", "tol"} and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value.values())
        if not ok or float(value.get("tol", 0)) < 0:
            raise ToolExpectError(f"{where}: write {{approx: NUMBER, tol: NUMBER ≥ 0}}")


def calls_tool(where: str, value: object, known: list[str] | None, steps: int | None) -> list[dict[str, Any]]:
    """One or more expected calls, each as a mapping with name (and the options given)."""
    items = value if isinstance(value, list) else [value]
    out: list[dict[str, Any]] = []
    for raw in items:
        spec: dict[str, Any] = {"name": raw} if isinstance(raw, str) else raw if isinstance(raw, dict) else {}
        if not spec:
            raise ToolExpectError(f"{where}: write a tool's name, or {{name: NAME, arguments: {{…}}}}")
        for k in spec:
            if k not in CALL_KEYS:
                raise ToolExpectError(f"{where}: unknown key {k!r} in calls_tool; use {', '.join(CALL_KEYS)}")
        _names(where, spec.get("name"), known)
        args = spec.get("arguments", {})
        if not isinstance(args, dict):
            raise ToolExpectError(f"{where}: arguments map each argument's name to its expected value")
        for k, v in args.items():
            _expected_value(f"{where}: arguments: {k}", v)
        if spec.get("match", "subset") not in MATCH:
            raise ToolExpectError(f"{where}: match {spec.get('match')!r}; write subset or exact")
        if "within_ms" in spec:
            _ms(f"{where}: within_ms", spec["within_ms"])
        if "after" in spec:
            if steps is None:
                raise ToolExpectError(f"{where}: after belongs to a test's calls_tool (on a step, the step is the anchor)")
            a = spec["after"]
            if isinstance(a, bool) or not isinstance(a, int) or not 1 <= a <= steps:
                raise ToolExpectError(f"{where}: after {a!r}; give the number of the step whose turn the call follows (1–{steps})")
        out.append(dict(spec))
    return out


def no_tool_call(where: str, value: object, known: list[str] | None) -> list[str]:
    if value is True:
        return [ANY_TOOL]
    if value is False:
        raise ToolExpectError(f"{where}: false asserts nothing; write true (no call), a name, or drop it")
    return _names(where, value, known)


def tool_order(where: str, value: object, known: list[str] | None) -> list[str]:
    names = _names(where, value, known)
    if len(names) < 2:
        raise ToolExpectError(f"{where}: give at least two tools, in the order they must first be called")
    return names


def max_calls(where: str, value: object, known: list[str] | None) -> dict[str, int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return {ANY_TOOL: _ms(where, value)}
    if not isinstance(value, dict) or not value:
        raise ToolExpectError(f"{where}: give a number (calls of any tool) or {{NAME: N}}")
    _names(where, list(value), known)
    return {str(k): _ms(f"{where}: {k}", v) for k, v in value.items()}


def final_state(where: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in ("equals", "contains"):
        raise ToolExpectError(f"{where}: write {{equals: STATE}} or {{contains: PART}}")
    if not isinstance(next(iter(value.values())), dict):
        raise ToolExpectError(f"{where}: the state is a mapping")
    return dict(value)


# -- matching ------------------------------------------------------------------------------------


def value_matches(expected: Any, got: Any) -> bool:
    """One argument: a literal (equal; numbers by value), {regex}, {approx, tol}; mappings as subsets."""
    if isinstance(expected, dict) and set(expected) == {"regex"}:
        return got is not None and re.search(str(expected["regex"]), str(got), re.IGNORECASE) is not None
    if isinstance(expected, dict) and "approx" in expected and set(expected) <= {"approx", "tol"}:
        try:
            return abs(float(got) - float(expected["approx"])) <= float(expected.get("tol", 0))
        except (TypeError, ValueError):
            return False
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(value_matches(e, g) for e, g in zip(expected, got, strict=True))
    return subset_matches(expected, got, value_matches)


def subset_matches(expected: Any, got: Any, inner: Callable[[Any, Any], bool]) -> bool:
    """`got` holds `expected`: mappings as subsets (every expected key, its value matched by `inner`), booleans
    by identity, numbers by value, anything else equal. Shared with a mock tool's `when`
    (`floorbench.tools.behaviour.matches`)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        return all(k in got and inner(v, got[k]) for k, v in expected.items())
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return float(expected) == float(got)
    return bool(expected == got)


def arguments_match(expected: dict[str, Any], got: dict[str, Any], exact: bool) -> bool:
    if exact and set(expected) != set(got):
        return False
    return all(k in got and value_matches(v, got[k]) for k, v in expected.items())


def contains(part: Any, whole: Any) -> bool:
    """`whole` holds `part`: mappings as subsets, lists item by item, the rest equal."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(k in whole and contains(v, whole[k]) for k, v in part.items())
    return bool(part == whole)


def oracle_arguments(expected: dict[str, Any]) -> dict[str, Any]:
    """The arguments a known-good agent sends for an expectation: literals as written, an approx its number,
    a regex its own text without anchors and escapes when that matches it (else the argument is left out)."""
    out: dict[str, Any] = {}
    for k, v in expected.items():
        if isinstance(v, dict) and "approx" in v:
            out[k] = v["approx"]
        elif isinstance(v, dict) and set(v) == {"regex"}:
            text = re.sub(r"\\(.)", r"\1", str(v["regex"]).removeprefix("^").removesuffix("$"))
            if re.search(str(v["regex"]), text, re.IGNORECASE):
                out[k] = text
        else:
            out[k] = v
    return out
