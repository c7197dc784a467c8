"""Tool calls on the session clock: one record per call, kept in the trial folder.

Each call the mock served is a `ToolCall`: the tool, its arguments, the response
or the error, and when it started and ended as integer ms on the scenario's
session clock (the clock of timeline.jsonl, `floorbench.clock.SessionClock`).
The trial folder gets ``tools.json`` (every call, the state at the end, where
the mock listened) and one ``tool`` line per call in timeline.jsonl. The
scorer reads ``tools.json`` back (`read_tools`) and puts the calls on the
recording's clock with the model track's start (meta.json ``tracks``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

TOOLS_FILE = "tools.json"
TOOLS_VERSION = 1


class ToolCall(BaseModel):
    """One call the mock served."""

    n: int = Field(description="1-based, in the order the calls arrived")
    tool: str
    via: str = Field(description="'mcp' or 'http'")
    arguments: dict[str, Any] = Field(default_factory=dict)
    response: Any = None
    error: str | None = None
    rule: str = Field(default="", description="which declared response answered (respond N, otherwise, …)")
    start_ms: int = Field(description="session clock: the request arrived")
    end_ms: int = Field(description="session clock: the response was sent")
    latency_ms: int = Field(description="the latency the mock applied (drawn or fixed)")


class ToolsRecord(BaseModel):
    """tools.json of one trial."""

    version: int = TOOLS_VERSION
    url: str = Field(default="", description="the HTTP base the mock served (MCP at url + /mcp)")
    calls: list[ToolCall] = Field(default_factory=list)
    state: dict[str, Any] = Field(default_factory=dict, description="the tools' state when the trial ended")
    initial_state: dict[str, Any] = Field(default_factory=dict)


def read_tools(folder: Path) -> ToolsRecord | None:
    """The folder's tools.json, None when there is none (a test without tools, or a trial cut short)."""
    path = folder / TOOLS_FILE
    if not path.is_file():
        return None
    try:
        return ToolsRecord.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def on_model_clock(calls: list[ToolCall], model_start_ms: int) -> list[ToolCall]:
    """The calls with their times on the recording's clock (t = 0 at model.wav's first sample)."""
    return [c.model_copy(update={"start_ms": c.start_ms - model_start_ms, "end_ms": c.end_ms - model_start_ms})
            for c in calls]
