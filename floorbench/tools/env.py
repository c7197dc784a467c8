"""How an agent is told where a trial's mock tools are: the names, in one place for every side.

The runner puts them in the model process's environment (and a dispatched
worker's job metadata, lower-cased without the prefix: ``tools_url``,
``mcp_url``); the reference agents read them back.
"""

TOOLS_URL_ENV = "FLOORBENCH_TOOLS_URL"
"""the mock's plain HTTP base (GET /tools, POST /tools/NAME) in the model process's environment"""
MCP_URL_ENV = "FLOORBENCH_MCP_URL"
"""the mock's MCP endpoint (streamable HTTP) in the model process's environment"""
TOOLS_HOST_ENV = "FLOORBENCH_TOOLS_HOST"
"""the address the mock listens on (default 127.0.0.1), as `floorbench test --tools-host`"""
