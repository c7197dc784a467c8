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
checked for Ogg/Opus interoperability with ``sphn`` (kyutai's codec library)
when that is installed.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from loguru import logger

from floorbench.processors.adapter_config import get_float, get_int, public_url, ws_url
from floorbench.processors.duplex_base import DuplexSocketProcessor
from floorbench.processors.ogg_opus import OggOpusReader, OggOpusWriter
from floorbench.processors.registry import Model, ModelContext, ModelError

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


class MoshiModel(Model):
    """A Moshi server reached over its WebSocket protocol."""

    name: ClassVar[str] = "moshi"
    joins = "pipeline"

    def __init__(self, ctx: ModelContext) -> None:
        super().__init__(ctx)
        c, n = self.config, self.name
        self.url = ws_url(c, n, "ws://127.0.0.1:8998/api/chat")
        self.connect_timeout_s = get_float(c, "connect_timeout_s", n, 30.0)
        self.opus_frame_ms = get_int(c, "opus_frame_ms", n, 80, (20, 40, 60, 80))
        backlog = c.get("max_backlog_ms", 240)
        if backlog is not None and (isinstance(backlog, bool) or not isinstance(backlog, int) or backlog < 0):
            raise ModelError(f"model {n}: `max_backlog_ms` must be a whole number of ms ≥ 0, or null")
        self.max_backlog_ms = backlog

    def processors(self) -> list:
        return [
            MoshiSocketProcessor(
                url=self.url,
                connect_timeout_s=self.connect_timeout_s,
                frame_ms=self.opus_frame_ms,
                opus_frame_ms=self.opus_frame_ms,
                max_backlog_ms=self.max_backlog_ms,
                name="moshi-model",
            )
        ]

    def card(self) -> dict[str, Any]:
        card = super().card()
        card.update(
            model_id=self.config.get(
                "model_id", "unknown (set `model_id`, e.g. kyutai/moshiko-pytorch-bf16)"
            ),
            endpoint=public_url(self.url),
            protocol="moshi (0x00 handshake, 0x01 Ogg/Opus 24 kHz, 0x02 text)",
        )
        return card
