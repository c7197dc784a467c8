"""No credential follows a redirect (or a server-named URL) to another origin (floorbench.safe_http).

Two local servers: A redirects every request to B, on another port (another
origin); B records the headers it is sent and answers as a chat-completions
endpoint would. Every client floorbench sends a key with — the LLM judge, the
LLM scenario generator, the cascade's LLM (aiohttp), the WebSocket adapters,
the WHIP session's DELETE — is pointed at A, and B must never see the key.
A redirect within one origin keeps it (the control: nothing is stripped blindly).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from floorbench import safe_http

KEY = "sk-planted-redirect-key-5a1f"
ANSWER = json.dumps({"choices": [{"message": {"content": '{"verdict": "correct"}'}}]}).encode()


@dataclass
class Seen:
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)

    def headers(self) -> list[dict[str, str]]:
        return [h for _, _, h in self.requests]


def _server(seen: Seen, redirect_to: str | None, status: int = 302) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # websockets reads only HTTP/1.1 answers

        def _any(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            if n:
                self.rfile.read(n)
            seen.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
            if redirect_to is not None and not self.path.startswith("/final"):
                self.send_response(status)
                self.send_header("Location", redirect_to + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(ANSWER)))
            self.end_headers()
            self.wfile.write(ANSWER)

        do_GET = do_POST = do_DELETE = _any

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def pair() -> Iterator[tuple[str, Seen, str, Seen]]:
    """(A's URL, what A saw, B's URL, what B saw): A redirects everything to B with a 302."""
    seen_b, seen_a = Seen(), Seen()
    b = _server(seen_b, None)
    b_url = f"http://127.0.0.1:{b.server_port}"
    a = _server(seen_a, b_url)
    yield f"http://127.0.0.1:{a.server_port}", seen_a, b_url, seen_b
    a.shutdown()
    b.shutdown()


def _no_key(seen: Seen) -> None:
    assert seen.requests, "the redirect was not followed"
    for h in seen.headers():
        assert "authorization" not in h and "x-api-key" not in h and "api-key" not in h, h
        assert KEY not in json.dumps(h)


def test_the_origin_rule() -> None:
    assert safe_http.same_origin("http://h/v1", "http://H:80/other?q")
    assert safe_http.same_origin("https://h/v1", "https://h:443/")
    assert not safe_http.same_origin("https://h/v1", "http://h/v1")
    assert not safe_http.same_origin("http://h:1/", "http://h:2/")
    assert not safe_http.same_origin("http://h/", "http://h.evil/")
    sent = {"Authorization": "Bearer k", "api-key": "k", "X-Goog-Api-Key": "k", "Cookie": "c",
            "Content-Type": "application/json", "X-Trace": "t"}
    assert safe_http.without_credentials(sent) == {"Content-Type": "application/json", "X-Trace": "t"}
    assert safe_http.headers_for("http://h/x", "http://h/y", sent) == sent
    assert safe_http.headers_for("http://other/x", "http://h/y", sent) == {"Content-Type": "application/json",
                                                                          "X-Trace": "t"}


def test_the_llm_judge_sends_no_key_to_the_origin_it_is_redirected_to(
    pair: tuple[str, Seen, str, Seen], monkeypatch: pytest.MonkeyPatch
) -> None:
    from floorbench.scoring.judges.llm import LLMJudge

    a, seen_a, _, seen_b = pair
    monkeypatch.setenv("FB_TEST_JUDGE_KEY", KEY)
    judge = LLMJudge(model="m", base_url=f"{a}/v1", api_key_env="FB_TEST_JUDGE_KEY", retries=0, timeout_s=5)
    judge._post("hello")
    assert seen_a.headers()[0]["authorization"] == f"Bearer {KEY}"  # the configured origin gets it
    _no_key(seen_b)


def test_the_llm_scenario_generator_sends_no_key_to_the_origin_it_is_redirected_to(
    pair: tuple[str, Seen, str, Seen], monkeypatch: pytest.MonkeyPatch
) -> None:
    from floorbench.suites.mpe.llm import LLMConfig, chat

    a, seen_a, _, seen_b = pair
    monkeypatch.setenv("FB_TEST_GEN_KEY", KEY)
    chat(LLMConfig(base_url=f"{a}/v1", model="m", api_key_env="FB_TEST_GEN_KEY", timeout_s=5), "hi")
    assert seen_a.headers()[0]["authorization"] == f"Bearer {KEY}"
    _no_key(seen_b)


def test_a_redirect_within_the_origin_keeps_the_key() -> None:
    import urllib.request

    seen = Seen()
    holder: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
            if not self.path.startswith("/final"):
                self.send_response(302)
                self.send_header("Location", holder["url"] + "/final" + self.path)
            else:
                self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder["url"] = f"http://127.0.0.1:{srv.server_port}"
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        req = urllib.request.Request(holder["url"] + "/v1", headers={"Authorization": f"Bearer {KEY}"})
        with safe_http.urlopen(req, timeout=5) as resp:
            assert resp.status == 200
    finally:
        srv.shutdown()
    assert [p for _, p, _ in seen.requests] == ["/v1", "/final/v1"]
    assert all(h["authorization"] == f"Bearer {KEY}" for h in seen.headers())


async def test_aiohttp_requests_drop_every_credential_header_across_origins(pair: tuple[str, Seen, str, Seen]) -> None:
    import aiohttp

    a, seen_a, _, seen_b = pair
    headers = {"Authorization": f"Bearer {KEY}", "X-Api-Key": KEY, "api-key": KEY, "X-Trace": "t-1"}
    async with aiohttp.ClientSession() as session:
        async with safe_http.request(session, "POST", f"{a}/v1/chat/completions", json={"x": 1},
                                     headers=headers) as resp:
            assert resp.status == 200
            assert json.loads(await resp.read()) == json.loads(ANSWER)
    assert seen_a.headers()[0]["x-api-key"] == KEY
    _no_key(seen_b)
    assert seen_b.headers()[0]["x-trace"] == "t-1"  # only the credentials are dropped
    assert [m for m, _, _ in seen_b.requests] == ["GET"]  # a 302 after a POST is a GET, as urllib does


async def test_the_cascade_llm_sends_no_key_to_the_origin_it_is_redirected_to(
    pair: tuple[str, Seen, str, Seen], monkeypatch: pytest.MonkeyPatch
) -> None:
    from floorbench.processors.cascade_llm import LLMResponder, LLMSettings

    a, seen_a, _, seen_b = pair
    monkeypatch.setenv("FB_TEST_LLM_KEY", KEY)
    responder = LLMResponder.from_settings(LLMSettings(base_url=f"{a}/v1", model="m", api_key_env="FB_TEST_LLM_KEY"), "m")
    assert await responder.check("cascade") is None
    assert seen_a.headers()[0]["authorization"] == f"Bearer {KEY}"
    _no_key(seen_b)


async def test_the_whip_delete_sends_the_key_only_to_the_offer_urls_origin(pair: tuple[str, Seen, str, Seen]) -> None:
    import aiohttp

    from floorbench.processors.webrtc_signalling import WhipSignalling

    a, seen_a, b, seen_b = pair
    for resource, seen, keyed in ((f"{b}/final/session/1", seen_b, False), (f"{a}/final/session/2", seen_a, True)):
        whip = WhipSignalling(f"{a}/whip", key=KEY)
        whip.http = aiohttp.ClientSession()
        whip.resource = resource  # as the 201's Location named it
        await whip.close()
        method, path, headers = seen.requests[-1]
        assert (method, path) == ("DELETE", urlsplit(resource).path)
        assert ("authorization" in headers) is keyed, headers


async def test_websocket_redirects_drop_every_credential_header_across_origins(pair: tuple[str, Seen, str, Seen]) -> None:
    from websockets.asyncio.server import serve

    got: list[dict[str, str]] = []

    def record(connection: Any, request: Any) -> None:
        got.append({k.lower(): v for k, v in request.headers.raw_items()})

    async with serve(lambda ws: ws.close(), "127.0.0.1", 0, process_request=record) as ws_server:
        port = ws_server.sockets[0].getsockname()[1]
        seen_a = Seen()
        a = _server(seen_a, f"ws://127.0.0.1:{port}")
        try:
            headers = {"Authorization": f"Bearer {KEY}", "X-Api-Key": KEY, "X-Trace": "t-2"}
            ws = await asyncio.wait_for(
                safe_http.websocket_connect(f"http://127.0.0.1:{a.server_port}/s".replace("http", "ws", 1), headers),
                10,
            )
            await ws.close()
        finally:
            a.shutdown()
    assert seen_a.headers()[0]["x-api-key"] == KEY
    assert got and "x-api-key" not in got[0] and "authorization" not in got[0] and got[0]["x-trace"] == "t-2"
    del pair
