"""Mock tools for conversation tests (docs/testing.md "Tools"): what an agent does, on the audio's clock.

A voice agent's work is done through tools, and its awkward moments come
around them: dead air while a lookup runs, a call made before the caller
finished, a booking made twice after a barge-in. A test declares its tools
(`spec`), floorbench serves them for the length of each trial over MCP and
plain HTTP (`server`, `mcp_app`) with deterministic responses, state and
latency (`behaviour`), records every call on the scenario's session clock
(`records`), and judges the calls beside the recording (`judge`).
"""
