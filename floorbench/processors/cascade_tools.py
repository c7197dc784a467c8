"""The cascade's tool use: the trial's mock tools, called from its rules or from an LLM.

Why: a voice agent's awkward moments come around its tools (dead air while a
lookup runs, a call made before the number was finished), and floorbench's
own reference agent should show them. When the model process has
``FLOORBENCH_TOOLS_URL`` (floorbench.tools.env) the cascade reads the declared
tools once (``GET /tools``) and then:

- **from its rules** (`ToolRules.plan`): a tool whose name and description share
  a word with what the caller said, and whose *required* arguments can all be
  filled from it, is called — a small, general slot filler driven by the
  declared JSON Schema, not per-task code: an ``enum`` value heard; an email
  ("ada at example dot com"); a number or a digit string ("four two seven", or
  ASR's "for two seven" → "427", checked against the property's ``pattern``); a code of letters and a
  number ("B twelve" → "B12"); a clock time ("two thirty" → "14:30"). The
  cascade says a short filler, calls the tool over HTTP (``POST /tools/NAME``;
  one retry after an error that reads as passing, like a timeout) and speaks an answer built from the response;
- **through an OpenAI-compatible LLM** (`openai_tools`, `run_tool_calls`): the
  tools go to the model as chat-completions ``tools`` (function definitions);
  each ``tool_calls`` entry it sends back is executed against the mock and its
  result returned as a ``tool`` message, until the model answers in words.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from floorbench import safe_http
from floorbench.processors.cascade_text import SMALL, content_words, fmt_number, words
from floorbench.tools.env import TOOLS_URL_ENV

FILLER = "One moment, let me check that."
TIMEOUT_S = 15.0
DIGITS = {k: str(v) for k, v in SMALL.items() if v < 10 and k not in ("a", "an")} | {"oh": "0"}
TENS = {k: v for k, v in SMALL.items() if v >= 10}
HOMOPHONES = {"for": "4", "to": "2", "too": "2", "won": "1"}
"""what ASR writes for a digit said among digits ("my order for two seven")"""
TRANSIENT = re.compile(r"time ?out|timed out|unavailable|temporar|try again|busy|overload", re.IGNORECASE)
"""an error worth one more try (a "no such order" is not)"""
LETTER_NAMES = {"be": "B", "bee": "B", "see": "C", "sea": "C", "dee": "D", "gee": "G", "jay": "J", "kay": "K",
                "pee": "P", "queue": "Q", "are": "R", "tee": "T", "tea": "T", "vee": "V", "ex": "X", "why": "Y"}
"""what ASR writes for a letter said before a number in a code ("be 12" for B12)"""
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]

    @property
    def topic(self) -> set[str]:
        """The words that say what the tool is for (its name's parts and its description)."""
        return _stems(content_words(self.name.replace("_", " ") + " " + self.description))


def _stems(ws: set[str]) -> set[str]:
    return {w[:5] for w in ws if len(w) > 2}


def tools_url() -> str | None:
    """The mock's HTTP base from the environment, when the runner serves tools for this trial."""
    return os.environ.get(TOOLS_URL_ENV) or None


async def fetch_tools(base: str) -> list[Tool]:
    """The declared tools (``GET /tools``)."""
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S)) as session:
        async with safe_http.request(session, "GET", f"{base}/tools") as r:
            data = await r.json()
    return [Tool(t["name"], t.get("description", ""), t.get("parameters") or {}) for t in data["tools"]]


async def call_tool(base: str, name: str, args: dict[str, Any]) -> tuple[Any, str | None]:
    """(result, None) or (None, the error) from ``POST /tools/NAME``."""
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S)) as session:
        async with safe_http.request(session, "POST", f"{base}/tools/{name}", json=args) as r:
            data = await r.json(content_type=None)
    if isinstance(data, dict) and "error" in data:
        return None, str(data["error"])
    return (data.get("result") if isinstance(data, dict) else data), None


# --- slot filling -----------------------------------------------------------------------------


def _digit_runs(ws: list[str]) -> list[str]:
    """Digit strings said digit by digit or written: "four two seven" → "427", "518" → "518"."""
    runs, cur = [], ""
    for i, w in enumerate(ws):
        nxt = ws[i + 1] if i + 1 < len(ws) else ""
        if w in DIGITS or (w in HOMOPHONES and nxt in DIGITS):
            cur += DIGITS.get(w) or HOMOPHONES[w]
            continue
        if cur:
            runs.append(cur)
            cur = ""
        if w.isdigit():
            runs.append(w)
    return runs + ([cur] if cur else [])


def _codes(text: str) -> list[str]:
    """Letter-and-number codes: "B twelve", "B 12", ASR's "be 12" → "B12"."""
    names = "|".join(LETTER_NAMES)
    text = re.sub(rf"\b({names})\b(?=[ -]+(?:\d|[a-z]+\b))", lambda m: LETTER_NAMES[m.group(1).lower()], text,
                  flags=re.IGNORECASE)
    text = re.sub(r"\b([A-Z])[ -](\d+)\b", r"\1\2", text)  # "B 12"
    out = [m.upper() for m in re.findall(r"\b[A-Za-z]{1,3}\d+\b", text)]
    for m in re.finditer(r"\b([A-Za-z])[ -]+([a-z]+(?: [a-z]+)?)\b", text):
        letter, rest = m.group(1), m.group(2).lower().split()
        if len(m.group(1)) == 1 and rest and rest[0] in SMALL and rest[0] not in ("a", "an"):
            n = SMALL[rest[0]] + (SMALL[rest[1]] if len(rest) > 1 and rest[1] in DIGITS else 0)
            out.append(f"{letter.upper()}{n}")
    return out


def _email(text: str) -> str | None:
    t = re.sub(r"\s+at\s+", "@", text.lower())
    t = re.sub(r"\s+dot\s+", ".", t)
    m = re.search(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", t)
    return m.group(0).rstrip(".") if m else None


def _clock(ws: list[str], text: str) -> str | None:
    """A clock time: "14:30", "nine fifteen" or "915" → "09:15", "two thirty" → "14:30" (afternoon below 8)."""
    m = re.search(r"\b(\d{1,2}):?([0-5]\d)\b", text)  # "14:30", or ASR's "230" for "two thirty"
    if m and 1 <= (h := int(m.group(1))) <= 23:
        return f"{h + 12 if h < 8 else h:02d}:{m.group(2)}"
    for i, w in enumerate(ws[:-1]):
        h = SMALL.get(w)
        if h is None or not 1 <= h <= 12 or w in ("a", "an"):
            continue
        nxt = ws[i + 1]
        if nxt in TENS or nxt in ("oclock", "o'clock"):
            minutes = TENS.get(nxt, 0)
            if nxt in TENS and i + 2 < len(ws) and ws[i + 2] in DIGITS and TENS[nxt] >= 20:
                minutes += int(DIGITS[ws[i + 2]])
            return f"{h + 12 if h < 8 else h:02d}:{minutes:02d}"
    return None


def _fits(value: str, prop: dict[str, Any]) -> bool:
    pattern = prop.get("pattern")
    return not isinstance(pattern, str) or re.search(pattern, value) is not None


def fill_value(key: str, prop: dict[str, Any], text: str) -> Any:
    """One argument's value from what was heard, by its schema, or None."""
    ws = words(text)
    kind, hint = prop.get("type"), f"{key} {prop.get('description', '')} {prop.get('format', '')}".lower()
    if isinstance(prop.get("enum"), list):
        said = set(ws)
        return next((v for v in prop["enum"] if str(v).lower() in said), None)
    if kind in ("number", "integer"):
        nums = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]
        if not nums:
            return None
        return int(nums[0]) if kind == "integer" else nums[0]
    if kind not in ("string", None):
        return None
    if "email" in hint:
        return _email(text)
    if "time" in hint and "date" not in hint:
        return _clock(ws, text)
    if "day" in hint and "today" not in hint:
        return next((w for w in ws if w in WEEKDAYS), None)
    if "name" in hint:
        m = re.search(r"\b(?i:my name is) ([A-Z][a-z]+)", text)
        return m.group(1) if m else None
    candidates = _codes(text) if re.search(r"\b(id|code|booking|reference)\b", hint.replace("_", " ")) else []
    candidates += _digit_runs(ws)
    return next((c for c in candidates if _fits(c, prop)), None)


def fill_arguments(tool: Tool, text: str) -> dict[str, Any] | None:
    """The arguments for `tool` from `text`: every required one filled (else None), optional ones if heard."""
    props = tool.parameters.get("properties") or {}
    required = tool.parameters.get("required") or []
    args: dict[str, Any] = {}
    for key, prop in props.items():
        value = fill_value(key, prop if isinstance(prop, dict) else {}, text)
        if value is not None:
            args[key] = value
        elif key in required:
            return None
    return args


# --- the rule responder's side ---------------------------------------------------------------


def _said(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return fmt_number(float(value))
    if isinstance(value, list):
        return ", ".join(_said(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"the {k.replace('_', ' ')} is {_said(v)}" for k, v in value.items())
    return str(value)


def spoken_answer(tool: Tool, result: Any, error: str | None) -> str:
    """A short spoken answer from a tool's response."""
    if error is not None:
        return f"Sorry, I could not do that: {error}."
    if result is None or result == {} or result == []:
        return "I found nothing for that."
    return f"Here is what I found: {_said(result)}."


@dataclass
class ToolPlan:
    tool: Tool
    arguments: dict[str, Any]


class ToolRules:
    """The rule responder's tool use over one trial's mock (module docstring)."""

    def __init__(self, base: str, tools: list[Tool]) -> None:
        self.base = base
        self.tools = tools
        self.done: list[tuple[str, dict[str, Any]]] = []
        """the calls made so far (the same call is not planned twice in a row)"""

    def plan(self, text: str, before: str | None = None) -> ToolPlan | None:
        """The tool to call for `text`, and its arguments; else the same for `before` and `text` together
        (a reply like "yes, nine fifteen" completes the request before it)."""
        for said in (text, f"{before} {text}") if before else (text,):
            if plan := self._best(said):
                return plan
        return None

    def _best(self, text: str) -> ToolPlan | None:
        """The best topic match whose required arguments all fill from `text`. When the best match of all
        (what the caller asked for) cannot be filled, a tool that can tell one of its missing arguments (its
        name or description names it: "the free appointment times on a day" for a move's missing time)
        comes before the others: asked to move a booking to Tuesday, look up Tuesday's times, do not cancel."""
        heard = _stems(content_words(text))
        scored = [(len(heard & t.topic), t) for t in self.tools]
        top = max((n for n, _ in scored), default=0)
        if not top:
            return None
        missing = {part for n, t in scored if n == top and fill_arguments(t, text) is None
                   for key in t.parameters.get("required") or [] if fill_value(
                       key, (t.parameters.get("properties") or {}).get(key) or {}, text) is None
                   for part in key.split("_") if len(part) > 2}
        best: tuple[tuple[bool, int], ToolPlan] | None = None
        for score, tool in scored:
            tells = any(w.startswith(m[:4]) for m in missing for w in tool.topic)
            rank = (tells, score)
            if (not score and not tells) or (best is not None and rank <= best[0]):
                continue
            args = fill_arguments(tool, text)
            if args is not None and (not self.done or self.done[-1] != (tool.name, args)):
                best = (rank, ToolPlan(tool, args))
        return best[1] if best else None

    async def run(self, plan: ToolPlan) -> str:
        """Call the planned tool (again once after an error that reads as passing) and say what came back."""
        self.done.append((plan.tool.name, plan.arguments))
        result, error = await call_tool(self.base, plan.tool.name, plan.arguments)
        if error is not None and TRANSIENT.search(error):
            result, error = await call_tool(self.base, plan.tool.name, plan.arguments)
        return spoken_answer(plan.tool, result, error)


# --- the LLM's side ---------------------------------------------------------------------------


def openai_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    """The tools as chat-completions function definitions."""
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


async def run_tool_calls(base: str, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Execute a model's ``tool_calls`` against the mock; the ``tool`` messages that answer them."""
    out = []
    for c in calls:
        fn = c.get("function") or {}
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except json.JSONDecodeError as e:
            result, error = None, f"arguments are not JSON ({e})"
        else:
            result, error = await call_tool(base, str(fn.get("name")), args if isinstance(args, dict) else {})
        content = json.dumps({"error": error} if error is not None else {"result": result})
        out.append({"role": "tool", "tool_call_id": c.get("id", ""), "content": content})
    return out
