"""What a local stand-in of an OpenAI-compatible chat endpoint sends back."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler


def send_chat_reply(handler: BaseHTTPRequestHandler, content: str) -> None:
    """One chat-completions answer whose message content is `content`."""
    data = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
