"""A loopback stand-in for the OpenAI Realtime WebSocket, for one unit test of the service adapter.

It answers the session handshake, counts the audio appended, and — once it
has heard `answer_after_ms` of input — streams `reply_ms` of tone as audio
deltas all at once (faster than real time, as the real API does), then reports
that the user started speaking. It is a fake for a single-component test only;
it never stands in for OpenAI in a test that claims the live path works.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading

import numpy as np
from aiohttp import WSMsgType, web


class FakeRealtimeServer:
    def __init__(
        self, answer_after_ms: int = 300, reply_ms: int = 2000, barge_in_after_s: float = 0.3
    ) -> None:
        self.answer_after_ms, self.reply_ms, self.barge_in_after_s = (
            answer_after_ms,
            reply_ms,
            barge_in_after_s,
        )
        self.port = 0
        self.auth: list[str] = []
        self.client_events: list[dict] = []
        self.appended_bytes = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/realtime"

    def __enter__(self) -> FakeRealtimeServer:
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop and self._runner
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _serve(self) -> None:
        self._loop = asyncio.new_event_loop()
        app = web.Application()
        app.router.add_get("/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, request: web.Request) -> web.WebSocketResponse:
        self.auth.append(request.headers.get("Authorization", ""))
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        n = 0

        async def send(evt: dict) -> None:
            nonlocal n
            n += 1
            await ws.send_str(json.dumps({"event_id": f"e{n}", **evt}))

        await send({"type": "session.created", "session": {}})
        answered = False
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                break
            evt = json.loads(msg.data)
            self.client_events.append(evt)
            if evt["type"] == "session.update":
                await send({"type": "session.updated", "session": evt.get("session", {})})
            elif evt["type"] == "input_audio_buffer.append":
                self.appended_bytes += len(base64.b64decode(evt["audio"]))
                if not answered and self.appended_bytes >= 24000 * 2 * self.answer_after_ms // 1000:
                    answered = True
                    t = np.arange(24000 * self.reply_ms // 1000) / 24000
                    pcm = (np.sin(2 * np.pi * 500 * t) * 8000).astype("<i2").tobytes()
                    ids = {"response_id": "r1", "item_id": "i1", "output_index": 0, "content_index": 0}
                    for i in range(0, len(pcm), 9600):
                        delta = base64.b64encode(pcm[i : i + 9600]).decode()
                        await send({"type": "response.output_audio.delta", **ids, "delta": delta})
                    await asyncio.sleep(self.barge_in_after_s)
                    await send(
                        {"type": "input_audio_buffer.speech_started", "audio_start_ms": 0, "item_id": "i2"}
                    )
        return ws
