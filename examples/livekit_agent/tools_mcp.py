"""The example worker's tools: floorbench's mock (or your real server) over MCP, found in the job's metadata.

`floorbench test --dispatch` puts the trial's mock in the job's metadata
(``{"mcp_url": "http://127.0.0.1:PORT/mcp", ...}``); `mcp_url` takes it only
when it is an http(s) URL on a host this worker trusts (127.0.0.1 and
localhost, or AGENT_TOOLS_HOSTS, comma-separated), so a dispatch cannot point
the agent anywhere else. `call` is one MCP ``tools/call`` over streamable HTTP
with the official SDK's client; a real product would hand the same URL to
``AgentSession(mcp_servers=[mcp.MCPServerHTTP(url)])`` and let its LLM call.

`order_number` reads an order number from what the caller said (digits, or
digits spoken as words, as Whisper writes either).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any
from urllib.parse import urlparse

DIGITS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
          "seven": "7", "eight": "8", "nine": "9",
          "won": "1", "to": "2", "too": "2", "for": "4", "ate": "8"}  # Whisper's spellings of spoken digits


def trusted_hosts() -> set[str]:
    extra = {h.strip() for h in os.environ.get("AGENT_TOOLS_HOSTS", "").split(",") if h.strip()}
    return {"127.0.0.1", "localhost"} | extra


def mcp_url(metadata: str | None) -> str | None:
    """The job's MCP endpoint, or None: no metadata, not JSON, or a URL off the trusted hosts."""
    try:
        url = json.loads(metadata or "{}").get("mcp_url")
    except (ValueError, AttributeError):
        return None
    if not isinstance(url, str) or len(url) > 200:
        return None
    u = urlparse(url)
    if u.scheme not in ("http", "https") or u.hostname not in trusted_hosts() or u.port is None or u.username:
        return None
    return url


def order_number(text: str) -> str | None:
    """``427`` from "order 427", "order 4-2-7" or "order four two seven" (heard as "for two seven"), read after
    the word "order"."""
    words = re.findall(r"[a-z]+|\d", text.lower().partition("order")[2])
    digits = "".join(DIGITS.get(w, w if w.isdigit() else " ") for w in words)
    runs = [r for r in digits.split() if len(r) >= 3]
    return runs[0] if runs else None


async def call(url: str, name: str, arguments: dict[str, Any]) -> Any:
    """One MCP tool call; the structured result, else the text; an error raises RuntimeError."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(name, arguments)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    if result.is_error:
        raise RuntimeError(text or f"{name} failed")
    return result.structured_content if result.structured_content is not None else text
