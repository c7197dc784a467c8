"""`moshi`: a Moshi-protocol full-duplex server (kyutai's ``moshi.server`` / Rust ``moshi-backend``).

The protocol, as kyutai's Python server and client implement it
(``moshi/moshi/server.py``, ``client.py``):

- WebSocket at ``ws://HOST:8998/api/chat`` (binary messages only);
- the server sends a handshake, the single byte ``0x00``, once it has reset
  its model state for this connection (it serves one connection at a time, so
  the handshake can take long while another client is connected);
- then both ways ``0x01`` + a piece of an Ogg/Opus stream at 24 kHz mono (the
  stream is cut anywhere: a message may hold part of a page or several);
- server → client ``0x02`` + UTF-8 text: the model's inner-monologue text
  tokens, as it speaks.

Moshi speaks continuously (silence is audio too), so its output goes straight
to the room; there is no interruption message — a full-duplex model stops
talking by producing silence. Because it streams all the time, a burst (room
audio queued while the pipeline started) would become latency that never
drains; the adapter drops *quiet* output while more than ``max_backlog_ms``
(default 240) is queued for playout, as a jitter buffer would. Speech is never
dropped; set ``max_backlog_ms: null`` to turn this off.

No real Moshi weights were run while building this adapter: it is tested
against the reference server in ``tests/support/duplex_servers.py`` and
checked for Ogg/Opus interoperability against streams recorded once with
``sphn`` (kyutai's codec library), in ``tests/fixtures/reference/``.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from loguru import logger
from pydantic import Field

from floorbench.processors.adapter_config import Ms, Seconds
from floorbench.processors.duplex_base import DuplexSocketModel, DuplexSocketProcessor, SocketSettings
from floorbench.processors.ogg_opus import OggOpusReader, OggOpusWriter

MOSHI_RATE = 24000
KIND_HANDSHAKE, KIND_AUDIO, KIND_TEXT = 0x00, 0x01, 0x02


class MoshiSocketProcessor(DuplexSocketProcessor):
    """The Moshi wire protocol of this module's docstring."""

    def __init__(self, *, opus_frame_ms: int = 80, **kwargs: Any) -> None:
        super().__init__(send_sample_rate=MOSHI_RATE, recv_sample_rate=MOSHI_RATE, **kwargs)
        self._writer = OggOpusWriter(MOSHI_RATE, frame_ms=opus_frame_ms)
        self._reader = OggOpusReader(MOSHI_RATE)
        self.handshake_received = False

    async def on_connected(self) -> None:
        await self._ready.wait()  # set by handle_message on 0x00

    def encode_audio(self, pcm: np.ndarray) -> list[bytes | str]:
        data = self._writer.append_pcm(pcm)
        return [bytes([KIND_AUDIO]) + data] if data else []

    async def handle_message(self, message: bytes | str) -> None:
        if isinstance(message, str) or not message:
            return
        kind, payload = message[0], message[1:]
        if kind == KIND_HANDSHAKE:
            self.handshake_received = True
            self._ready.set()
        elif kind == KIND_AUDIO:
            await self.push_model_audio(self._reader.append_bytes(payload))
        elif kind == KIND_TEXT:
            self.stats.text.append(payload.decode("utf-8", errors="replace"))
        else:
            logger.debug(f"{self}: ignoring message kind {kind}")


class MoshiSettings(SocketSettings):
    """The `moshi` config (module docstring)."""

    url: str = Field(default="ws://127.0.0.1:8998/api/chat", validate_default=True)
    connect_timeout_s: Seconds = 30.0
    """the server serves one client at a time; the handshake waits for it"""
    opus_frame_ms: Literal[20, 40, 60, 80] = 80
    max_backlog_ms: Ms | None = 240
    """quiet output is dropped while more than this is queued for playout; null: never"""
    model_id: str = "unknown (set `model_id`, e.g. kyutai/moshiko-pytorch-bf16)"


class MoshiModel(DuplexSocketModel[MoshiSettings], name="moshi"):
    """A Moshi server reached over its WebSocket protocol."""

    protocol = "moshi (0x00 handshake, 0x01 Ogg/Opus 24 kHz, 0x02 text)"

    def bridge(self, **endpoint: Any) -> MoshiSocketProcessor:
        s = self.settings
        return MoshiSocketProcessor(
            **endpoint,
            frame_ms=s.opus_frame_ms,
            opus_frame_ms=s.opus_frame_ms,
            max_backlog_ms=s.max_backlog_ms,
        )
