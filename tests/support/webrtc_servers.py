"""Products behind plain WebRTC for the `webrtc` adapter's tests, each on 127.0.0.1 in a thread of its own.

- `PipecatBot`: a real pipecat bot. pipecat's own ``SmallWebRTCConnection`` and
  ``SmallWebRTCTransport`` behind an aiohttp ``POST /api/offer`` that does what
  pipecat's runner does (a new connection per offer, a known ``pc_id``
  renegotiates), running ``transport.input() → ReplyProcessor → transport.output()``.
- `WhipProduct`: an RFC 9725 endpoint made with aiortc (``POST /whip`` →
  201 + Location, ``DELETE`` ends the session, a bearer token when set).
- `RealtimeStandIn`: the Realtime API's WebRTC call flow (``POST
  /v1/realtime/calls`` multipart ``sdp`` + ``session``, bearer key, answer as
  ``application/sdp``; the ``oai-events`` channel takes ``session.update`` and
  answers ``session.updated``).

All of them behave like `duplex_servers.Behaviour` (``reply``: a fixed
two-tone clip after speech and a pause; ``echo``: the room back, delayed),
decided per 20 ms of what they hear at 16 kHz. Failure modes for the adapter's
failure kinds: ``mode="silent"`` never answers the offer, ``"no_candidates"``
answers with an SDP whose candidates were removed (ICE cannot connect),
``"drop"`` closes the peer connection ``drop_after_s`` after it came up (the
pipecat bot disconnects, saying ``peerLeft``); a wrong ``key`` is answered
401. The pipecat bot with ``mode="renegotiate"`` asks its client for a new
offer once connected.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from aiohttp import web

try:
    from tests.support.duplex_servers import Behaviour, _Brain
except ModuleNotFoundError:
    from support.duplex_servers import Behaviour, _Brain

RATE = 16000
STEP = RATE // 50


@dataclass
class Seen:
    """What a product saw, for the tests to check."""

    offers: list[dict[str, Any]] = field(default_factory=list)
    """one entry per offer: {"path", "auth", "content_type", "pc_id"?, "session"?}"""
    sessions: list[str] = field(default_factory=list)
    """session ids given out (a WHIP resource's last path segment)"""
    deleted: list[str] = field(default_factory=list)
    data_channel: list[Any] = field(default_factory=list)
    heard_samples: int = 0
    connected: int = 0


def strip_candidates(sdp: str) -> str:
    return "\r\n".join(line for line in sdp.split("\r\n") if not line.startswith("a=candidate"))


class _Threaded:
    """An aiohttp app on 127.0.0.1 with its own loop in a daemon thread."""

    def __init__(
        self,
        behaviour: Behaviour | None = None,
        *,
        mode: str = "ok",
        key: str | None = None,
        drop_after_s: float = 2.0,
    ) -> None:
        self.behaviour = behaviour or Behaviour("reply")
        self.mode = mode
        self.key = key
        self.drop_after_s = drop_after_s
        self.seen = Seen()
        self.reply_clip: np.ndarray | None = None
        """what a reply says (16 kHz int16); None: the behaviour's two-tone clip"""
        self.port = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._started = threading.Event()
        self._thread: threading.Thread | None = None
        self._closers: list[Any] = []

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> _Threaded:
        self._thread = threading.Thread(target=self._serve, daemon=True, name=type(self).__name__)
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError(f"{type(self).__name__} did not start within 10 s")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.loop is not None:
            fut = asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop)
            try:
                fut.result(10)
            except Exception:
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    async def _shutdown(self) -> None:
        for close in self._closers:
            try:
                await asyncio.wait_for(close(), 5)
            except Exception:
                pass
        if self._runner is not None:
            await self._runner.cleanup()

    def _serve(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        self.routes(app)
        self._runner = web.AppRunner(app)
        self.loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._started.set()
        self.loop.run_forever()

    def refused(self, request: web.Request) -> web.Response | None:
        """401 for a wrong or missing bearer key (when one is set)."""
        if self.key and request.headers.get("Authorization") != f"Bearer {self.key}":
            body = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
            return web.json_response(body, status=401)
        return None

    async def stall_if_silent(self) -> None:
        if self.mode == "silent":  # longer than any offer timeout in the tests, short enough to shut down
            await asyncio.sleep(3.0)


# --- a real pipecat bot ------------------------------------------------------------


def _brain(product: _Threaded) -> _Brain:
    brain = _Brain(product.behaviour, RATE)
    if product.reply_clip is not None:
        brain.clip = product.reply_clip
    return brain


def _reply_processor(product: _Threaded) -> Any:
    """A pipecat processor answering as `behaviour` decides, per 20 ms of 16 kHz input."""
    from pipecat.frames.frames import Frame, InputAudioRawFrame, OutputAudioRawFrame
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

    class ReplyProcessor(FrameProcessor):
        """Hears 16 kHz room audio; pushes the reply's frames as the brain decides."""

        def __init__(self) -> None:
            super().__init__(name="reply")
            self.brain = _brain(product)
            self.buf = np.zeros(0, dtype=np.int16)

        async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
            await super().process_frame(frame, direction)
            if not isinstance(frame, InputAudioRawFrame):
                await self.push_frame(frame, direction)
                return
            assert frame.sample_rate == RATE and frame.num_channels == 1
            self.buf = np.concatenate([self.buf, np.frombuffer(frame.audio, dtype=np.int16)])
            while len(self.buf) >= STEP:
                pcm, self.buf = self.buf[:STEP], self.buf[STEP:]
                product.seen.heard_samples += STEP
                out, _ = self.brain.step(pcm)
                if out is not None:
                    await self.push_frame(OutputAudioRawFrame(audio=out.tobytes(), sample_rate=RATE, num_channels=1))

    return ReplyProcessor()


class PipecatBot(_Threaded):
    """A pipecat SmallWebRTC bot behind ``POST /api/offer`` (module docstring)."""

    def __init__(self, behaviour: Behaviour | None = None, **kwargs: Any) -> None:
        super().__init__(behaviour, **kwargs)
        self.connections: dict[str, Any] = {}
        self.bots: list[asyncio.Task] = []
        self._closers.append(self._stop_bots)

    @property
    def offer_url(self) -> str:
        return self.url("/api/offer")

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/api/offer", self._offer)

    async def _offer(self, request: web.Request) -> web.Response:
        from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection

        if (refusal := self.refused(request)) is not None:
            return refusal
        await self.stall_if_silent()
        body = await request.json()
        pc_id = body.get("pc_id")
        self.seen.offers.append({"path": request.path, "pc_id": pc_id, "request_data": body.get("requestData")})
        if pc_id and pc_id in self.connections:
            conn = self.connections[pc_id]
            await conn.renegotiate(sdp=body["sdp"], type=body["type"], restart_pc=bool(body.get("restart_pc")))
        else:
            conn = SmallWebRTCConnection()
            await conn.initialize(sdp=body["sdp"], type=body["type"])
            self.bots.append(asyncio.create_task(self._bot(conn)))
        answer = conn.get_answer()
        self.connections[answer["pc_id"]] = conn
        return web.json_response(answer)

    async def _bot(self, conn: Any) -> None:
        from pipecat.pipeline.pipeline import Pipeline
        from pipecat.pipeline.worker import PipelineParams, PipelineWorker
        from pipecat.transports.base_transport import TransportParams
        from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport
        from pipecat.workers.runner import WorkerRunner

        transport = SmallWebRTCTransport(
            webrtc_connection=conn,
            params=TransportParams(audio_in_enabled=True, audio_out_enabled=True, audio_in_sample_rate=RATE),
        )
        worker = PipelineWorker(
            Pipeline([transport.input(), _reply_processor(self), transport.output()]),
            params=PipelineParams(audio_in_sample_rate=RATE, audio_out_sample_rate=24000),
            idle_timeout_secs=None,
            enable_rtvi=False,
            check_dangling_tasks=False,
        )

        @transport.event_handler("on_client_connected")
        async def _connected(*_: Any) -> None:
            self.seen.connected += 1
            if self.mode == "renegotiate":  # as a bot does when it wants its video again
                conn.ask_to_renegotiate()
            elif self.mode == "drop":  # the bot leaves: pipecat says peerLeft, then closes
                await asyncio.sleep(self.drop_after_s)
                await conn.disconnect()

        @transport.event_handler("on_client_disconnected")
        async def _gone(*_: Any) -> None:
            await worker.cancel()

        runner = WorkerRunner(handle_sigint=False, handle_sigterm=False)
        await runner.add_workers(worker)
        await runner.run()

    async def _stop_bots(self) -> None:
        for conn in self.connections.values():
            await conn.disconnect()
        for t in self.bots:
            t.cancel()
        await asyncio.gather(*self.bots, return_exceptions=True)


# --- aiortc products (WHIP, the Realtime stand-in) ---------------------------------


class _AiortcProduct(_Threaded):
    """One aiortc peer per offer: hears the caller's track, answers per `behaviour` on its own track."""

    def __init__(self, behaviour: Behaviour | None = None, **kwargs: Any) -> None:
        super().__init__(behaviour, **kwargs)
        self.pcs: dict[str, Any] = {}
        self.listeners: list[asyncio.Task] = []
        self._closers.append(self._close_all)

    async def answer(self, sdp: str) -> tuple[str, str]:
        """(session id, SDP answer) for the caller's offer; starts the product's side."""
        from aiortc import RTCPeerConnection, RTCSessionDescription

        from floorbench.processors.webrtc_peer import RoomTrack

        pc = RTCPeerConnection()
        sid = uuid.uuid4().hex[:12]
        self.pcs[sid] = pc
        self.seen.sessions.append(sid)
        out = RoomTrack()
        pc.addTrack(out)

        @pc.on("track")
        def _track(track: Any) -> None:
            self.listeners.append(asyncio.ensure_future(self._listen(track, out)))

        @pc.on("datachannel")
        def _channel(channel: Any) -> None:
            @channel.on("message")
            def _message(message: Any) -> None:
                self.on_data(channel, message)

        @pc.on("connectionstatechange")
        async def _state() -> None:
            if pc.connectionState == "connected":
                self.seen.connected += 1
                if self.mode == "drop":
                    await asyncio.sleep(self.drop_after_s)
                    await pc.close()

        await pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        answer = pc.localDescription.sdp
        return sid, strip_candidates(answer) if self.mode == "no_candidates" else answer

    async def _listen(self, track: Any, out: Any) -> None:
        import soxr
        from aiortc.mediastreams import MediaStreamError

        brain = _brain(self)
        down = soxr.ResampleStream(48000, RATE, 1, dtype="int16")
        buf = np.zeros(0, dtype=np.int16)
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            x = frame.to_ndarray().reshape(-1)
            channels = len(frame.layout.channels)
            x = x.reshape(-1, channels).mean(axis=1).astype(np.int16) if channels > 1 else x
            buf = np.concatenate([buf, down.resample_chunk(x)])
            while len(buf) >= STEP:
                pcm, buf = buf[:STEP], buf[STEP:]
                self.seen.heard_samples += STEP
                reply, _ = brain.step(pcm)
                if reply is not None:
                    out.feed(reply, RATE)

    def on_data(self, channel: Any, message: Any) -> None:
        self.seen.data_channel.append(message)

    async def _close_all(self) -> None:
        for pc in self.pcs.values():
            await pc.close()


class WhipProduct(_AiortcProduct):
    """RFC 9725 endpoint at ``/whip`` (module docstring)."""

    @property
    def endpoint(self) -> str:
        return self.url("/whip")

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/whip", self._post)
        app.router.add_delete("/whip/{sid}", self._delete)

    async def _post(self, request: web.Request) -> web.Response:
        if (refusal := self.refused(request)) is not None:
            return refusal
        await self.stall_if_silent()
        self.seen.offers.append(
            {"path": request.path, "auth": request.headers.get("Authorization"), "content_type": request.content_type}
        )
        if request.content_type != "application/sdp":
            return web.Response(status=415, text="WHIP takes application/sdp")
        sid, answer = await self.answer(await request.text())
        return web.Response(
            status=201, text=answer, content_type="application/sdp", headers={"Location": f"/whip/{sid}"}
        )

    async def _delete(self, request: web.Request) -> web.Response:
        if (refusal := self.refused(request)) is not None:
            return refusal
        sid = request.match_info["sid"]
        self.seen.deleted.append(sid)
        if (pc := self.pcs.pop(sid, None)) is not None:
            await pc.close()
        return web.Response(status=200)


class RealtimeStandIn(_AiortcProduct):
    """The Realtime API's WebRTC call flow at ``/v1/realtime/calls`` (module docstring)."""

    @property
    def endpoint(self) -> str:
        return self.url("/v1/realtime/calls")

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/realtime/calls", self._post)

    async def _post(self, request: web.Request) -> web.Response:
        if (refusal := self.refused(request)) is not None:
            return refusal
        await self.stall_if_silent()
        form = await request.post()
        sdp, session = form.get("sdp"), form.get("session")
        if not isinstance(sdp, str):
            return web.json_response({"error": {"message": "sdp is required"}}, status=400)
        self.seen.offers.append(
            {"path": request.path, "content_type": request.content_type, "session": json.loads(str(session or "{}"))}
        )
        sid, answer = await self.answer(sdp)
        return web.Response(
            status=201,
            text=answer,
            content_type="application/sdp",
            headers={"Location": f"/v1/realtime/calls/rtc_{sid}"},
        )

    def on_data(self, channel: Any, message: Any) -> None:
        event = json.loads(message)
        self.seen.data_channel.append(event)
        if event.get("type") == "session.update":
            reply = {"type": "session.updated", "session": event.get("session"), "t": time.time()}
            channel.send(json.dumps(reply))
            if event.get("session", {}).get("instructions") == "fail":
                channel.send(json.dumps({"type": "error", "error": {"message": "Invalid session.instructions"}}))


# --- a product in a process of its own (live tests: no share of the runner's GIL) ---------

PRODUCTS: dict[str, type[_Threaded]] = {"pipecat": PipecatBot, "whip": WhipProduct, "openai": RealtimeStandIn}


def _endpoint(product: _Threaded) -> str:
    return product.offer_url if isinstance(product, PipecatBot) else product.endpoint  # type: ignore[attr-defined]


class ProductProcess:
    """`python -m tests.support.webrtc_servers` as a child: its endpoint, then, once stopped, what it saw."""

    def __init__(
        self,
        kind: str,
        events: Path,
        *,
        key: str | None = None,
        gap_ms: int = 700,
        clip_ms: int = 800,
        clip: Path | None = None,
        echo: bool = False,
    ) -> None:
        self.cmd = [sys.executable, "-m", "tests.support.webrtc_servers", "--product", kind, "--events", str(events)]
        self.cmd += ["--gap-ms", str(gap_ms), "--clip-ms", str(clip_ms)]
        self.cmd += ["--clip", str(clip)] if clip is not None else []
        self.cmd += ["--echo"] if echo else []
        self.env = dict(os.environ, FB_TEST_PRODUCT_KEY=key or "")
        self.events_path = events
        self.proc: subprocess.Popen[str] | None = None
        self.endpoint = ""
        self.report: dict[str, Any] = {}

    def __enter__(self) -> ProductProcess:
        root = Path(__file__).resolve().parents[2]
        self.proc = subprocess.Popen(self.cmd, cwd=root, env=self.env, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.cmd}: exited before serving (code {self.proc.wait()})")
        self.endpoint = json.loads(line)["endpoint"]
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.events_path.exists():
            self.report = json.loads(self.events_path.read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--product", choices=sorted(PRODUCTS), required=True)
    ap.add_argument("--events", type=Path, required=True, help="where to write what it saw, on SIGTERM")
    ap.add_argument("--gap-ms", type=int, default=700)
    ap.add_argument("--clip-ms", type=int, default=800)
    ap.add_argument("--clip", type=Path, help="a 16 kHz recording to reply with (default: a two-tone clip)")
    ap.add_argument("--echo", action="store_true", help="send back what it hears at once (no reply logic)")
    args = ap.parse_args()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    kind = "echo" if args.echo else "reply"
    behaviour = Behaviour(kind, delay_ms=0, gap_ms=args.gap_ms, clip_ms=args.clip_ms)
    with PRODUCTS[args.product](behaviour, key=os.environ.get("FB_TEST_PRODUCT_KEY") or None) as product:
        if args.clip is not None:
            import soundfile as sf

            clip, rate = sf.read(str(args.clip), dtype="int16")
            assert rate == RATE, f"{args.clip}: {rate} Hz, want {RATE}"
            product.reply_clip = clip
        print(json.dumps({"endpoint": _endpoint(product)}), flush=True)
        stop.wait()
        seen = dataclasses.asdict(product.seen)
    seen["events"] = behaviour.events
    args.events.write_text(json.dumps(seen, default=str))


if __name__ == "__main__":
    main()
