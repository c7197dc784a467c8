"""How a mock tool answers one call: the response chosen, the state read and written, the latency.

Deterministic by construction: the response is the first whose argument match
(`when`, a subset) and call number (`call`) hold; the latency of a call is
drawn from the tool's distribution with a generator seeded by the test's seed,
the trial, the tool and the call's number, so the same trial of the same test
waits the same ms whoever calls, and the state is a fresh deep copy per trial.
"""

from __future__ import annotations

import copy
import hashlib
import random
import re
from dataclasses import dataclass
from typing import Any

from floorbench.tools.expect import subset_matches
from floorbench.tools.spec import Latency, Response, ToolSet, ToolSpec, schema_problem

TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Answer:
    """What one call got: a JSON value, or an error's text; and how long the mock waited first."""

    response: Any
    error: str | None
    latency_ms: int
    rule: str
    """which response answered: ``respond 2``, ``otherwise``, ``arguments`` (they broke the schema)"""


def matches(expected: Any, got: Any) -> bool:
    """`got` holds `expected`: equal, or for mappings every expected key with a matching value (a subset)."""
    return subset_matches(expected, got, matches)


def fill(template: Any, args: dict[str, Any]) -> Any:
    """`{arg}` in strings replaced by the argument's value (a whole-string `{arg}` keeps its type)."""
    if isinstance(template, str):
        whole = TEMPLATE.fullmatch(template)
        if whole and whole.group(1) in args:
            return args[whole.group(1)]
        return TEMPLATE.sub(lambda m: str(args.get(m.group(1), m.group(0))), template)
    if isinstance(template, dict):
        return {fill(k, args): fill(v, args) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, args) for v in template]
    return template


def _path(path: str, args: dict[str, Any]) -> list[str]:
    """A dotted path's parts, each filled from the arguments after the split (an email's dots stay in its part)."""
    return [str(fill(p, args)) for p in path.split(".") if p]


def read(state: dict[str, Any], path: list[str]) -> Any:
    node: Any = state
    for p in path:
        if isinstance(node, dict) and p in node:
            node = node[p]
        elif isinstance(node, list) and p.isdigit() and int(p) < len(node):
            node = node[int(p)]
        else:
            return None
    return copy.deepcopy(node)


def write(state: dict[str, Any], path: list[str], value: Any, append: bool = False) -> None:
    node: Any = state
    for p in path[:-1]:
        if not isinstance(node.get(p), dict):
            node[p] = {}
        node = node[p]
    if append:
        lst = node.setdefault(path[-1], [])
        if not isinstance(lst, list):
            lst = node[path[-1]] = [lst]
        lst.append(value)
    else:
        node[path[-1]] = value


def draw_ms(lat: Latency, seed: int, trial: int, tool: str, call: int) -> int:
    """The latency of call `call` of `tool` in trial `trial` (the same for every run of that trial)."""
    if lat.ms is not None:
        return lat.ms
    key = hashlib.sha256(f"{seed}/{trial}/{tool}/{call}".encode()).digest()
    rng = random.Random(int.from_bytes(key[:8], "big"))
    if lat.uniform is not None:
        return rng.randint(*lat.uniform)
    assert lat.normal is not None
    return max(0, round(rng.gauss(*lat.normal)))


class ToolBackend:
    """The tools of one trial and their state; `answer` is called once per call, in arrival order."""

    def __init__(self, tools: ToolSet, trial: int = 1) -> None:
        self.tools = tools
        self.trial = trial
        self.state: dict[str, Any] = copy.deepcopy(tools.state)
        self.calls: dict[str, int] = {}

    def answer(self, name: str, args: dict[str, Any]) -> Answer:
        spec = self.tools.tool(name)
        if spec is None:
            return Answer(None, f"no tool named {name!r} (tools: {', '.join(self.tools.names) or 'none'})", 0, "unknown")
        n = self.calls[name] = self.calls.get(name, 0) + 1
        base = draw_ms(spec.latency_ms, self.tools.seed, self.trial, name, n)
        why = schema_problem(spec.parameters, args)
        if why is not None:
            return Answer(None, f"invalid arguments: {why}", base, "arguments")
        for i, r in enumerate(spec.respond, 1):
            if (r.when is None or matches(r.when, args)) and (r.call is None or r.call == n):
                return self._apply(spec, r, args, n, f"respond {i}")
        if spec.otherwise is not None:
            return self._apply(spec, spec.otherwise, args, n, "otherwise")
        return Answer(None, f"no response matches these arguments for {name}", base, "none")

    def _apply(self, spec: ToolSpec, r: Response, args: dict[str, Any], n: int, rule: str) -> Answer:
        ms = draw_ms(r.latency_ms or spec.latency_ms, self.tools.seed, self.trial, spec.name, n)
        if r.error is not None:
            return Answer(None, str(fill(r.error, args)), ms, rule)
        value = read(self.state, _path(r.reads, args)) if r.reads is not None else fill(r.returns, args)
        if r.reads is not None and value is None:
            return Answer(None, f"not found: {'.'.join(_path(r.reads, args))}", ms, rule)
        for path, v in r.sets.items():
            write(self.state, _path(path, args), fill(v, args))
        for path, v in r.appends.items():
            write(self.state, _path(path, args), fill(v, args), append=True)
        return Answer(value, None, ms, rule)
