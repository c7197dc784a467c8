"""The tool calls of a trial in the report (floorbench.suites.agent.report): a lane of the timeline and
rows of its table, on the recording's clock like the caller's steps and the agent's speech.

Each call is a bar from its start to its end, named by its tool; a call that
returned an error is drawn in the error colour. Hovering shows its arguments
and its response or error. Every text is escaped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from floorbench.escape import html_text as esc

SHOWN = 120


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def describe(c: dict[str, Any]) -> str:
    out = f"{c.get('tool')}({_short(c.get('arguments') or {})})"
    return out + (f" → error: {_short(c['error'])}" if c.get("error") else f" → {_short(c.get('response'))}")


def tool_events(conv: dict[str, Any]) -> list[tuple[int, int | None, str, str]]:
    """(start ms, end ms, "tools", what) of each call, for the trial's table."""
    return [(int(c["start_ms"]), int(c["end_ms"]), "tools", f"call {c.get('n')} via {c.get('via')}: {describe(c)}")
            for c in conv.get("tools") or [] if isinstance(c, dict) and "start_ms" in c]


def tool_lane(conv: dict[str, Any], x: Callable[[float], float], width: Callable[[float, float], float],
              y: int, height: int) -> list[str]:
    """The SVG of the tools lane (nothing when the trial made no call)."""
    out = []
    for c in conv.get("tools") or []:
        if not isinstance(c, dict) or "start_ms" not in c:
            continue
        s, e = int(c["start_ms"]), int(c["end_ms"])
        fill = "#c0392b" if c.get("error") else "#8e44ad"
        tip = f"{describe(c)} {s}–{e} ms"
        out.append(f'<rect x="{x(s):.1f}" y="{y}" width="{width(s, e):.1f}" height="{height}" fill="{fill}" rx="2">'
                   f'<title>{esc(tip)}</title></rect>'
                   f'<text x="{x(s) + 2:.1f}" y="{y + 13}">{esc(str(c.get("tool")))}</text>')
    return out
