"""The mock tools a conversation test declares (docs/testing.md "Tools"), read and checked once.

A test file (or one test) may declare ``tools:``, each a tool the agent can
call while the call runs, and ``tool_state:``, the small JSON "database" they
read and write (a fresh copy per trial). Checking happens here, before any
room opens, so a schema that is not JSON Schema, a canned response that does
not match the tool's ``returns_schema``, a state that is not JSON or a tool
name used twice is one line naming the file, the test and the tool.

A tool::

    - name: lookup_order
      description: Look up an order by its number.
      parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
      returns_schema: {type: object}          # optional: every canned response must match it
      latency_ms: 800                          # or {uniform: [200, 900]}, {normal: [600, 100]}
      respond:                                 # first match wins
        - when: {order_id: "427"}              # these arguments (a subset), and/or the nth call
          returns: {status: shipped}
        - call: 1                              # the first call of this tool fails
          error: database timeout
        - reads: "orders.{order_id}"           # the state at that path ({arg} from the arguments)
          sets: {"orders.{order_id}.status": refunded}
      otherwise: {error: no such order}        # none matched (default: an error saying so)
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
TOOL_KEYS = ("name", "description", "parameters", "returns_schema", "latency_ms", "respond", "otherwise")
RESPONSE_KEYS = ("when", "call", "returns", "error", "reads", "sets", "appends", "latency_ms")
MAX_TOOLS = 32
MAX_LATENCY_MS = 60_000
MAX_STATE_BYTES = 256 * 1024


class ToolSpecError(ValueError):
    """A tool declaration breaks the format; the message is one line naming where and the fix."""


class Latency(BaseModel):
    """A tool's latency: fixed (`ms`), or drawn per call from a seeded distribution."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ms: int | None = None
    uniform: tuple[int, int] | None = None
    normal: tuple[int, int] | None = Field(default=None, description="(mean, sd) in ms, clipped at 0")


class Response(BaseModel):
    """One way a tool answers, and when: `when` (arguments, a subset) and `call` (the nth call) must hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    when: dict[str, Any] | None = None
    call: int | None = None
    returns: Any = None
    error: str | None = None
    reads: str | None = Field(default=None, description="a dotted path into the state; {arg} from the arguments")
    sets: dict[str, Any] = Field(default_factory=dict, description="path → value written to the state")
    appends: dict[str, Any] = Field(default_factory=dict, description="path → value appended to a list there")
    latency_ms: Latency | None = None


class ToolSpec(BaseModel):
    """One mock tool: what the agent sees (name, description, parameters) and how it behaves."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    returns_schema: dict[str, Any] | None = None
    latency_ms: Latency = Field(default_factory=lambda: Latency(ms=0))
    respond: list[Response] = Field(default_factory=list)
    otherwise: Response | None = None


class ToolSet(BaseModel):
    """Every tool of a test and the state they start from (scenario field ``tools``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tools: list[ToolSpec] = Field(default_factory=list)
    state: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]


def _json(where: str, value: object, what: str) -> None:
    """`value` is plain JSON (YAML may give dates, sets, non-string keys, NaN)."""
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ToolSpecError(f"{where}: {what} is not JSON ({e}); write plain mappings, lists, strings, numbers, "
                            "true/false/null (quote dates and keys)") from None
    if json.loads(text) != value:
        raise ToolSpecError(f"{where}: {what} is not JSON (a key that is not a string?); quote every key")


def _schema(where: str, value: object, what: str) -> dict[str, Any]:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if not isinstance(value, dict):
        raise ToolSpecError(f"{where}: {what} must be a JSON Schema mapping such as "
                            "{type: object, properties: {order_id: {type: string}}}")
    _json(where, value, what)
    try:
        Draft202012Validator.check_schema(value)
    except SchemaError as e:
        at = "/".join(str(p) for p in e.path) or "its top"
        raise ToolSpecError(f"{where}: {what} is not JSON Schema (at {at}: {e.message}); fix it") from None
    return value


def schema_problem(schema: dict[str, Any], value: Any) -> str | None:
    """Why `value` does not match `schema` (one phrase), None when it does."""
    from jsonschema import Draft202012Validator

    err = next(iter(sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.path))), None)
    if err is None:
        return None
    at = "/".join(str(p) for p in err.path)
    return f"{at + ': ' if at else ''}{err.message}"


def latency(where: str, value: object) -> Latency:
    def ms(v: object) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_LATENCY_MS:
            raise ToolSpecError(f"{where}: latency_ms {value!r}; give ms (0–{MAX_LATENCY_MS}), "
                                "{uniform: [LO, HI]} or {normal: [MEAN, SD]}")
        return v

    if not isinstance(value, dict):
        return Latency(ms=ms(value))
    if len(value) != 1 or next(iter(value)) not in ("uniform", "normal"):
        raise ToolSpecError(f"{where}: latency_ms {value!r}; write {{uniform: [LO, HI]}} or {{normal: [MEAN, SD]}}")
    kind, pair = next(iter(value.items()))
    if not isinstance(pair, list) or len(pair) != 2:
        raise ToolSpecError(f"{where}: latency_ms {kind} takes two numbers of ms, e.g. [200, 900]")
    a, b = ms(pair[0]), ms(pair[1])
    if kind == "uniform" and a > b:
        raise ToolSpecError(f"{where}: latency_ms uniform [{a}, {b}]: the low end comes first")
    return Latency(uniform=(a, b)) if kind == "uniform" else Latency(normal=(a, b))


def _response(where: str, raw: object, tool: ToolSpec | None, returns_schema: dict[str, Any] | None) -> Response:
    if not isinstance(raw, dict):
        raise ToolSpecError(f"{where}: expected a mapping such as {{when: {{ARG: VALUE}}, returns: VALUE}}")
    for k in raw:
        if k not in RESPONSE_KEYS:
            raise ToolSpecError(f"{where}: unknown key {k!r} in a response; use {', '.join(RESPONSE_KEYS)}")
    if "returns" in raw and "error" in raw:
        raise ToolSpecError(f"{where}: a response either returns a value or fails with an error, not both")
    if "reads" in raw and ("returns" in raw or "error" in raw):
        raise ToolSpecError(f"{where}: reads returns the state at a path; drop returns/error beside it")
    if "when" in raw and not isinstance(raw["when"], dict):
        raise ToolSpecError(f"{where}: when must map argument names to the values that choose this response")
    call = raw.get("call")
    if call is not None and (isinstance(call, bool) or not isinstance(call, int) or call < 1):
        raise ToolSpecError(f"{where}: call {call!r}; give the call's number (1: the first call of this tool)")
    if "error" in raw and (not isinstance(raw["error"], str) or not raw["error"].strip()):
        raise ToolSpecError(f"{where}: error must be the error's text")
    for key in ("sets", "appends"):
        if key in raw and (not isinstance(raw[key], dict) or not all(isinstance(p, str) and p for p in raw[key])):
            raise ToolSpecError(f"{where}: {key} maps state paths (orders.{{order_id}}.status) to values")
    if "reads" in raw and (not isinstance(raw["reads"], str) or not raw["reads"]):
        raise ToolSpecError(f"{where}: reads takes a state path such as orders.{{order_id}}")
    _json(where, {k: v for k, v in raw.items() if k != "latency_ms"}, "the response")
    if returns_schema is not None and "returns" in raw:
        why = schema_problem(returns_schema, raw["returns"])
        if why is not None:
            raise ToolSpecError(f"{where}: returns does not match the tool's returns_schema ({why}); fix one of them")
    lat = latency(where, raw["latency_ms"]) if "latency_ms" in raw else None
    return Response(**{k: v for k, v in raw.items() if k != "latency_ms"}, latency_ms=lat)


def _tool(where: str, raw: object) -> ToolSpec:
    if not isinstance(raw, dict):
        raise ToolSpecError(f"{where}: expected a mapping with name, description, parameters")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ToolSpecError(f"{where}: name {name!r}; give 1–64 letters, digits, _ or -, starting with a letter")
    where = f"{where} ({name})"
    for k in raw:
        if k not in TOOL_KEYS:
            raise ToolSpecError(f"{where}: unknown key {k!r} in a tool; use {', '.join(TOOL_KEYS)}")
    desc = raw.get("description", "")
    if not isinstance(desc, str):
        raise ToolSpecError(f"{where}: description must be text (what the agent is told the tool does)")
    params = _schema(where, raw.get("parameters", {"type": "object", "properties": {}}), "parameters")
    if params.get("type") not in ("object", None):
        raise ToolSpecError(f"{where}: parameters must describe an object (type: object): a tool's arguments are named")
    rs = _schema(where, raw["returns_schema"], "returns_schema") if "returns_schema" in raw else None
    respond = raw.get("respond", [])
    if not isinstance(respond, list):
        raise ToolSpecError(f"{where}: respond must be a list of responses, first match wins")
    resp = [_response(f"{where}: respond {i}", r, None, rs) for i, r in enumerate(respond, 1)]
    other = _response(f"{where}: otherwise", raw["otherwise"], None, rs) if "otherwise" in raw else None
    lat = latency(where, raw["latency_ms"]) if "latency_ms" in raw else Latency(ms=0)
    return ToolSpec(name=name, description=desc, parameters=params, returns_schema=rs, latency_ms=lat,
                    respond=resp, otherwise=other)


def state(where: str, value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ToolSpecError(f"{where}: tool_state must be a mapping (the tools' JSON database), got {type(value).__name__}")
    _json(where, value, "tool_state")
    if len(json.dumps(value)) > MAX_STATE_BYTES:
        raise ToolSpecError(f"{where}: tool_state is over {MAX_STATE_BYTES // 1024} KiB; keep the mock's database small")
    return value


def tool_set(where: str, tools: object, initial: object = None, seed: int = 0) -> ToolSet:
    """Check a ``tools:`` list and a ``tool_state:`` mapping; one `ToolSpecError` line on the first problem."""
    if tools is None:
        tools = []
    if not isinstance(tools, list):
        raise ToolSpecError(f"{where}: tools must be a list of tools, each with name, description, parameters")
    if len(tools) > MAX_TOOLS:
        raise ToolSpecError(f"{where}: {len(tools)} tools; a test declares at most {MAX_TOOLS}")
    out: list[ToolSpec] = []
    for i, raw in enumerate(tools, 1):
        t = _tool(f"{where}: tool {i}", raw)
        if t.name in [x.name for x in out]:
            raise ToolSpecError(f"{where}: tool {i}: the name {t.name!r} is used twice; give each tool its own name")
        out.append(t)
    return ToolSet(tools=out, state=state(where, initial), seed=seed)
