"""The mock's MCP face: the official SDK's low-level server with each declared tool as it was written.

The low-level server, not the decorator one, because a declared tool's schema
is the test's JSON Schema, given as is (the decorator server derives a schema
from a Python signature). A declared error is a tool result with ``isError``
(the model sees it and may recover), never a protocol error.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server
    from mcp.server.transport_security import TransportSecuritySettings

    from floorbench.tools.server import ToolMock

LOCAL = ("127.0.0.1", "localhost", "::1")


def mcp_server(mock: ToolMock) -> Server[Any]:
    import mcp.types as types
    from mcp.server.lowlevel import Server

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=t.name, description=t.description or None, input_schema=t.parameters)
            for t in mock.tools.tools])

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        rec = await mock.call(params.name, dict(params.arguments or {}), "mcp")
        if rec.error is not None:
            return types.CallToolResult(content=[types.TextContent(type="text", text=rec.error)], is_error=True)
        text = rec.response if isinstance(rec.response, str) else json.dumps(rec.response)
        structured = rec.response if isinstance(rec.response, dict) else None
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured)

    return Server("floorbench-tools", on_list_tools=list_tools, on_call_tool=call_tool)


def transport_security(host: str) -> TransportSecuritySettings | None:
    """The SDK guards localhost against DNS rebinding by itself; an operator's address is allowed explicitly."""
    from mcp.server.transport_security import TransportSecuritySettings

    if host in LOCAL:
        return None
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=[f"{host}:*"],
                                     allowed_origins=[f"http://{host}:*"])
