"""A pipecat processor that bridges the room to a full-duplex model server over a WebSocket.

Room audio (``InputAudioRawFrame``, 16 kHz from the transport) is resampled to
the server's input rate and handed to a sender task, so a slow server never
holds the pipeline; whatever the server sends back is decoded and pushed
downstream as ``OutputAudioRawFrame`` at the server's output rate (the output
transport resamples it). A server's "stop now" message becomes an
``InterruptionFrame`` pushed downstream, which clears the output queue.

Subclasses say how audio is framed on the wire (`encode_audio`,
`handle_message`): `duplex_ws.PcmSocketProcessor` (raw PCM, JSON control) and
`moshi.MoshiSocketProcessor` (kyutai's kind byte + Ogg/Opus).

Failures never raise out of the pipeline: an unreachable server, a server that
never sends its handshake, or a connection that drops (with an error or a clean
close) becomes one ``ErrorFrame`` with a one-line reason naming the fix, and
the model then stays silent. Silence is no result, so the processor also says
when its connection is up and when it drops (``reports_connection``; the
``on_model_connected`` / ``on_model_disconnected`` events): the model process
reports both to the runner, which fails the scenario with ``model_error``
unless the connection was up for all of it (docs/systems-under-test.md).
URLs in messages are cut to scheme, host, port and path (`public_url`).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from loguru import logger
from pipecat.frames.frames import InputAudioRawFrame, InterruptionFrame, OutputAudioRawFrame
from pipecat.processors.frame_processor import FrameProcessor
from typing_extensions import TypeVar

from floorbench.processors.adapter_config import AdapterSettings, WebSocketEndpoint, public_url
from floorbench.processors.registry import Model
from floorbench.processors.room_audio import ModelLinkProcessor


@dataclass
class SocketStats:
    """What crossed the socket; logged at the end of a session."""

    connected_ms: int | None = None
    """ms from StartFrame to a usable connection (handshake included)"""
    sent_bytes: int = 0
    received_bytes: int = 0
    received_audio_samples: int = 0
    text: list[str] = field(default_factory=list)
    dropped_input_ms: int = 0
    """input audio dropped before the server was ready"""
    interruptions: int = 0
    dropped_output_ms: int = 0
    """quiet model audio dropped to keep playout latency bounded (max_backlog_ms)"""


class DuplexSocketProcessor(ModelLinkProcessor):
    """Base of the WebSocket model bridges; see the module docstring."""

    link_kind: ClassVar[str] = "socket"

    def __init__(
        self,
        *,
        url: str,
        send_sample_rate: int,
        recv_sample_rate: int,
        headers: dict[str, str] | None = None,
        connect_timeout_s: float = 10.0,
        frame_ms: int = 20,
        max_backlog_ms: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.url = url
        self.send_sample_rate = send_sample_rate
        self.recv_sample_rate = recv_sample_rate
        self.headers = dict(headers or {})
        self.connect_timeout_s = connect_timeout_s
        self.frame_ms = frame_ms
        self.max_backlog_ms = max_backlog_ms
        self.stats = SocketStats()
        self._playout_end = 0.0
        self._ws: Any = None
        self._send_queue: asyncio.Queue[bytes | str | None] = asyncio.Queue()
        self._resampler: Any = None
        self._resampler_rate = 0
        self._pending = np.zeros(0, dtype=np.int16)
        self._public_url = public_url(url)

    # --- what a protocol defines -------------------------------------------------

    def encode_audio(self, pcm: np.ndarray) -> list[bytes | str]:
        """Wire messages for one chunk of int16 PCM at `send_sample_rate`."""
        raise NotImplementedError

    async def handle_message(self, message: bytes | str) -> None:
        """Act on one message from the server (push audio, interrupt, note text)."""
        raise NotImplementedError

    async def on_connected(self) -> None:
        """Called after connecting and before audio flows; waits for a handshake if any."""
        self._ready.set()

    # --- helpers for subclasses --------------------------------------------------

    async def push_model_audio(self, pcm: np.ndarray) -> None:
        if len(pcm) == 0:
            return
        self.stats.received_audio_samples += len(pcm)
        if self.max_backlog_ms is not None:
            # A server that streams all the time (Moshi sends every 80 ms step, silence too)
            # turns any burst — e.g. room audio queued while the pipeline started — into
            # latency that never goes away, since playout is real time. Like a jitter
            # buffer, drop *quiet* audio while more than max_backlog_ms is queued.
            now = time.monotonic()
            backlog_ms = (self._playout_end - now) * 1000
            quiet = np.abs(pcm.astype(np.int32)).max() < 100  # below about -50 dBFS
            if backlog_ms > self.max_backlog_ms and quiet:
                self.stats.dropped_output_ms += len(pcm) * 1000 // self.recv_sample_rate
                return
            self._playout_end = max(self._playout_end, now) + len(pcm) / self.recv_sample_rate
        await self.push_frame(
            OutputAudioRawFrame(
                audio=pcm.astype(np.int16, copy=False).tobytes(),
                sample_rate=self.recv_sample_rate,
                num_channels=1,
            )
        )

    async def interrupt_output(self, reason: str) -> None:
        """The server asked to stop talking now: drop what is queued for playout."""
        self.stats.interruptions += 1
        logger.debug(f"{self}: interruption from server ({reason})")
        await self.push_frame(InterruptionFrame())

    # --- pipecat plumbing --------------------------------------------------------

    async def on_room_audio(self, frame: InputAudioRawFrame) -> None:
        self._send_input(frame)

    def _send_input(self, frame: InputAudioRawFrame) -> None:
        pcm = np.frombuffer(frame.audio, dtype=np.int16)
        if frame.num_channels > 1:
            pcm = pcm.reshape(-1, frame.num_channels).mean(axis=1).astype(np.int16)
        if frame.sample_rate != self.send_sample_rate:
            if self._resampler is None or self._resampler_rate != frame.sample_rate:
                import soxr

                self._resampler = soxr.ResampleStream(
                    frame.sample_rate, self.send_sample_rate, 1, dtype="int16", quality="HQ"
                )
                self._resampler_rate = frame.sample_rate
            pcm = self._resampler.resample_chunk(pcm)
        if not self._ready.is_set():
            self.stats.dropped_input_ms += len(pcm) * 1000 // self.send_sample_rate
            return
        self._pending = np.concatenate([self._pending, pcm])
        step = self.send_sample_rate * self.frame_ms // 1000
        while len(self._pending) >= step:
            chunk, self._pending = self._pending[:step], self._pending[step:]
            for msg in self.encode_audio(chunk):
                self._send_queue.put_nowait(msg)

    async def _run(self) -> None:
        from floorbench.safe_http import websocket_connect

        try:
            self._ws = await asyncio.wait_for(
                websocket_connect(self.url, self.headers or None, max_size=None),
                timeout=self.connect_timeout_s,
            )
        except Exception as e:
            await self.push_error(
                f"{self.name}: cannot connect to {self._public_url} ({type(e).__name__}: {e}); "
                "start the model server or fix `url` in the model config"
            )
            return
        receiver = self.create_task(self._receive(), name=f"{self.name}-recv")
        self._tasks.append(receiver)
        try:
            await asyncio.wait_for(self.on_connected(), timeout=self.connect_timeout_s)
        except TimeoutError:
            await self.push_error(
                f"{self.name}: {self._public_url} accepted the connection but sent no handshake within "
                f"{self.connect_timeout_s:.0f} s; check that it speaks this protocol"
            )
            return
        self.stats.connected_ms = int((time.monotonic() - self._t0) * 1000)
        logger.info(f"{self}: connected to {self._public_url} in {self.stats.connected_ms} ms")
        if self._ready.is_set() and not self._lost_reported:  # else already reported as lost
            await self._call_event_handler("on_model_connected")
        await self._sender()

    async def _sender(self) -> None:
        while True:
            msg = await self._send_queue.get()
            if msg is None or self._ws is None:
                return
            try:
                await self._ws.send(msg)
            except Exception as e:
                if not self._closing:
                    await self._lost(f"connection to {self._public_url} lost while sending ({type(e).__name__}: {e})")
                return
            self.stats.sent_bytes += len(msg)

    async def _receive(self) -> None:
        try:
            async for message in self._ws:
                self.stats.received_bytes += len(message)
                await self.handle_message(message)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if not self._closing:
                await self._lost(f"connection to {self._public_url} lost ({type(e).__name__}: {e})")
        else:
            if not self._closing:
                await self._lost(f"{self._public_url} closed the connection")
        finally:
            self._ready.clear()

    async def close_link(self) -> None:
        self._send_queue.put_nowait(None)
        if self._ws is not None:
            try:
                await asyncio.wait_for(self._ws.close(), timeout=2.0)
            except Exception:
                pass
        for task in self._tasks:
            await self.cancel_task(task)
        s = self.stats
        logger.info(
            f"{self}: closed; sent {s.sent_bytes} B, received {s.received_bytes} B "
            f"({s.received_audio_samples * 1000 // max(1, self.recv_sample_rate)} ms audio), "
            f"{s.interruptions} interruptions, {s.dropped_input_ms} ms input dropped before ready, "
            f"{s.dropped_output_ms} ms quiet output dropped to bound latency"
        )


class SocketSettings(AdapterSettings, WebSocketEndpoint):
    """What every WebSocket model config holds: the endpoint and what to call the model in its card."""

    model_id: str = "unknown (set `model_id` in the config)"


SocketS = TypeVar("SocketS", bound=SocketSettings, default=SocketSettings)


class DuplexSocketModel(Model[SocketS]):
    """A model server behind one WebSocket: one bridge processor; its card names endpoint and protocol."""

    protocol: ClassVar[str] = ""

    def bridge(self, **endpoint: Any) -> DuplexSocketProcessor:
        """The protocol's processor, given the endpoint keyword arguments every bridge takes."""
        raise NotImplementedError

    def processors(self) -> list[FrameProcessor]:
        s = self.settings
        return [self.bridge(url=s.url, connect_timeout_s=s.connect_timeout_s, name=f"{self.name}-model")]

    def card(self) -> dict[str, Any]:
        card = super().card()
        card.update(
            model_id=self.settings.model_id, endpoint=public_url(self.settings.url), protocol=self.protocol
        )
        return card
