"""Reference full-duplex model servers for the `websocket` and `moshi` adapters.

They speak the same wire protocols as the adapters' targets and behave in a
known, checkable way, so a test can tell from the recording alone that audio
crossed the whole path:

- ``echo``: sends back what it hears, ``delay_ms`` later;
- ``reply``: after hearing sound (≥ ``min_speech_ms``) followed by
  ``gap_ms`` of quiet, plays a fixed clip (a two-tone burst of ``clip_ms``);
  if sound starts again while it plays, it stops at once (pcm-ws also sends
  ``{"type": "clear"}``).

Voice activity here is a plain energy gate (–40 dBFS over 20 ms). The Moshi
server encodes and decodes Ogg/Opus with kyutai's own ``sphn`` when it is
installed (as the real server does), else with floorbench's codec. Both run in a background thread with their
own event loop (`ReferenceServer.start()`), or from the command line:

    python -m tests.support.duplex_servers --protocol moshi --behaviour reply --port 8998
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
from dataclasses import dataclass, field

import numpy as np
from aiohttp import WSMsgType, web

from floorbench.processors.ogg_opus import OggOpusReader, OggOpusWriter

FRAME_MS = 20


def tone_clip(
    ms: int, rate: int, freqs: tuple[float, ...] = (440.0, 660.0), level: float = 0.25
) -> np.ndarray:
    t = np.arange(rate * ms // 1000) / rate
    x = sum(np.sin(2 * np.pi * f * t) for f in freqs) / len(freqs)
    ramp = min(len(t) // 2, rate // 100)
    env = np.ones_like(t)
    env[:ramp] = np.linspace(0, 1, ramp)
    env[-ramp:] = np.linspace(1, 0, ramp)
    return (x * env * level * 32767).astype(np.int16)


def loud(pcm: np.ndarray, threshold_dbfs: float = -40.0) -> bool:
    if len(pcm) == 0:
        return False
    rms = np.sqrt(np.mean((pcm.astype(np.float64) / 32768.0) ** 2)) + 1e-12
    return 20 * np.log10(rms) > threshold_dbfs


@dataclass
class Behaviour:
    kind: str = "reply"  # "reply" | "echo"
    delay_ms: int = 300
    gap_ms: int = 600
    min_speech_ms: int = 200
    clip_ms: int = 1000
    events: list[dict] = field(default_factory=list)
    """what the server did: {"event": "reply_start"|"reply_stop"|"connected", "t_ns": …}"""


class _Brain:
    """Per-connection decision logic: given input frames, which output frames to send."""

    def __init__(self, b: Behaviour, rate: int) -> None:
        self.b, self.rate = b, rate
        self.clip = tone_clip(b.clip_ms, rate)
        self.pos: int | None = None  # position in the clip while replying
        self.voiced_ms = 0
        self.quiet_ms = 0
        self.heard = False
        self.delay_line = np.zeros(rate * b.delay_ms // 1000, dtype=np.int16)

    def note(self, event: str) -> None:
        self.b.events.append({"event": event, "t_ns": time.time_ns()})

    def step(self, pcm: np.ndarray) -> tuple[np.ndarray | None, bool]:
        """One input frame in → (output frame or None for nothing to say, interrupted?)."""
        ms = len(pcm) * 1000 // self.rate
        if self.b.kind == "echo":
            line = np.concatenate([self.delay_line, pcm])
            out, self.delay_line = line[: len(pcm)], line[len(pcm) :]
            return out, False
        is_loud = loud(pcm)
        if self.pos is not None:
            self.voiced_ms = self.voiced_ms + ms if is_loud else 0
            if self.voiced_ms >= 60:  # barged in on: stop now
                self.pos = None
                self.heard, self.quiet_ms = True, 0
                self.note("reply_stop")
                return None, True
            out = self.clip[self.pos : self.pos + len(pcm)]
            self.pos += len(pcm)
            if self.pos >= len(self.clip):
                self.pos = None
                self.heard, self.voiced_ms = False, 0
                self.note("reply_end")
            return np.pad(out, (0, len(pcm) - len(out))), False
        if is_loud:
            self.voiced_ms += ms
            self.quiet_ms = 0
            if self.voiced_ms >= self.b.min_speech_ms:
                self.heard = True
        else:
            self.quiet_ms += ms
            if self.quiet_ms >= 200:
                self.voiced_ms = 0
            if self.heard and self.quiet_ms >= self.b.gap_ms:
                self.pos, self.heard = 0, False
                self.note("reply_start")
        return None, False


class _SphnCodec:
    """kyutai's sphn stream codec behind the interface of floorbench's (int16 in/out)."""

    def __init__(self) -> None:
        import sphn

        self.w, self.r = sphn.OpusStreamWriter(24000), sphn.OpusStreamReader(24000)

    def append_pcm(self, pcm: np.ndarray) -> bytes:
        x = pcm.astype(np.float32) / 32768.0
        out = b""
        for i in range(0, len(x) - 1919, 1920):  # sphn takes whole allowed frames
            res = self.w.append_pcm(x[i : i + 1920])
            out += res if isinstance(res, bytes) else b""
        return out

    def append_bytes(self, data: bytes) -> np.ndarray:
        pcm = self.r.append_bytes(data)
        return (np.clip(np.asarray(pcm), -1, 1) * 32767).astype(np.int16)


def moshi_codec() -> tuple[object, object, str]:
    try:
        c = _SphnCodec()
        return c, c, "sphn"
    except ImportError:
        return OggOpusReader(24000), OggOpusWriter(24000, frame_ms=80), "floorbench"


class ReferenceServer:
    """A pcm-ws or Moshi-protocol server on 127.0.0.1 in a thread of its own."""

    def __init__(
        self,
        protocol: str = "pcm",
        behaviour: Behaviour | None = None,
        port: int = 0,
        in_rate: int = 16000,
        out_rate: int = 24000,
    ) -> None:
        assert protocol in ("pcm", "moshi")
        self.protocol = protocol
        self.behaviour = behaviour or Behaviour()
        self.port = port
        self.in_rate, self.out_rate = (24000, 24000) if protocol == "moshi" else (in_rate, out_rate)
        self.hellos: list[dict] = []
        self.text_sent: list[str] = []
        self.received_samples = 0
        self.codec = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._started = threading.Event()

    @property
    def url(self) -> str:
        path = "/api/chat" if self.protocol == "moshi" else "/"
        return f"ws://127.0.0.1:{self.port}{path}"

    def start(self) -> ReferenceServer:
        self._thread = threading.Thread(target=self._serve, daemon=True, name=f"ref-{self.protocol}")
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("reference server did not start within 10 s")
        return self

    def stop(self) -> None:
        if self._loop and self._runner:
            fut = asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop)
            try:
                fut.result(5)
            except Exception:
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread:
            self._thread.join(5)

    def __enter__(self) -> ReferenceServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_get("/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._started.set()
        self._loop.run_forever()

    async def _handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self.behaviour.events.append({"event": "connected", "t_ns": time.time_ns()})
        if self.protocol == "moshi":
            await self._moshi(ws)
        else:
            await self._pcm(ws)
        return ws

    async def _pcm(self, ws: web.WebSocketResponse) -> None:
        brain = _Brain(self.behaviour, self.in_rate)
        ratio = self.out_rate / self.in_rate
        out_clip = tone_clip(self.behaviour.clip_ms, self.out_rate)
        buf = np.zeros(0, dtype=np.int16)
        step = self.in_rate * FRAME_MS // 1000
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                self.hellos.append(json.loads(msg.data))
                continue
            if msg.type != WSMsgType.BINARY:
                break
            buf = np.concatenate([buf, np.frombuffer(msg.data, dtype="<i2").astype(np.int16)])
            self.received_samples += len(msg.data) // 2
            while len(buf) >= step:
                frame, buf = buf[:step], buf[step:]
                pos_before = brain.pos
                out, interrupted = brain.step(frame)
                if interrupted:
                    await ws.send_str(json.dumps({"type": "clear"}))
                elif out is not None:
                    if self.behaviour.kind == "echo":
                        n = round(len(out) * ratio)
                        idx = np.minimum((np.arange(n) / ratio).astype(int), len(out) - 1)
                        await ws.send_bytes(out[idx].astype("<i2").tobytes())
                    else:  # the clip at the output rate, same position
                        a = round((pos_before or 0) * ratio)
                        await ws.send_bytes(out_clip[a : a + round(step * ratio)].astype("<i2").tobytes())

    async def _moshi(self, ws: web.WebSocketResponse) -> None:
        brain = _Brain(self.behaviour, 24000)
        reader, writer, self.codec = moshi_codec()
        await ws.send_bytes(b"\x00")
        buf = np.zeros(0, dtype=np.int16)
        step = 24000 * 80 // 1000  # Moshi steps in 80 ms frames
        words = ["Hello", " there", "."]
        async for msg in ws:
            if msg.type != WSMsgType.BINARY:
                break
            data = msg.data
            if not data or data[0] != 0x01:
                continue
            pcm = reader.append_bytes(data[1:])
            self.received_samples += len(pcm)
            buf = np.concatenate([buf, pcm])
            out_frames = []
            while len(buf) >= step:
                frame, buf = buf[:step], buf[step:]
                started = brain.pos is None
                out, _ = brain.step(frame)
                if started and brain.pos is not None and self.behaviour.kind == "reply":
                    for w in words:
                        self.text_sent.append(w)
                        await ws.send_bytes(b"\x02" + w.encode())
                # Moshi always answers every step, with silence when it has nothing to say.
                out_frames.append(out if out is not None else np.zeros(step, dtype=np.int16))
            if out_frames:
                pages = writer.append_pcm(np.concatenate(out_frames))
                if pages:
                    await ws.send_bytes(b"\x01" + pages)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--protocol", choices=["pcm", "moshi"], default="pcm")
    ap.add_argument("--behaviour", choices=["reply", "echo"], default="reply")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--delay-ms", type=int, default=300)
    args = ap.parse_args()
    server = ReferenceServer(
        args.protocol, Behaviour(args.behaviour, delay_ms=args.delay_ms), args.port
    ).start()
    print(f"serving {args.protocol}/{args.behaviour} at {server.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
