"""`websocket`: a generic full-duplex model server reached over one WebSocket, raw PCM both ways.

Wire protocol ("pcm-ws"), chosen to be the smallest thing most research
servers already speak or can be wrapped to speak in a few lines:

- The client connects to ``url`` (extra ``headers`` from config; with
  ``api_key_env`` an ``Authorization: Bearer <key>`` header is added).
- If ``hello`` is not null, the client first sends it as one JSON text message;
  the default is ``{"type": "start", "input_sample_rate": …,
  "output_sample_rate": …, "encoding": "pcm_s16le"}``.
- Client → server: binary messages of little-endian int16 mono PCM at
  ``input_sample_rate`` (default 16000), ``frame_ms`` each (default 20), sent
  continuously in real time — silence included, as a full-duplex model expects.
- Server → client: binary messages of int16 mono PCM at ``output_sample_rate``
  (default 24000), any size, sent when the model speaks (the adapter plays
  them in order). Text messages are JSON: ``{"type": "clear"}`` (or
  ``"interrupt"``) drops whatever audio is still queued for playout;
  ``{"type": "text", "text": …}`` is logged; anything else is ignored.
- ``audio_prefix`` (an int 0–255) puts one kind byte before every binary
  audio message in both directions, for servers that multiplex.

Example config (``floorbench/data/models/websocket-local.yaml``, ``--config websocket-local``)::

    adapter: websocket
    url: ws://127.0.0.1:8765/
    input_sample_rate: 16000
    output_sample_rate: 24000
"""

from __future__ import annotations

import json
from typing import Any, Literal

import numpy as np
from loguru import logger
from pydantic import Field

from floorbench.processors.adapter_config import KeyFromEnv
from floorbench.processors.duplex_base import DuplexSocketModel, DuplexSocketProcessor, SocketSettings
from floorbench.processors.registry import ModelContext

PcmRate = Literal[8000, 16000, 22050, 24000, 32000, 44100, 48000]


class PcmSocketProcessor(DuplexSocketProcessor):
    """The pcm-ws protocol of this module's docstring."""

    def __init__(
        self,
        *,
        hello: dict[str, Any] | None,
        audio_prefix: int | None = None,
        clear_types: tuple[str, ...] = ("clear", "interrupt"),
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hello = hello
        self.prefix = bytes([audio_prefix]) if audio_prefix is not None else b""
        self.clear_types = clear_types
        self._partial = b""

    async def on_connected(self) -> None:
        if self.hello is not None:
            await self._ws.send(json.dumps(self.hello))
        self._ready.set()

    def encode_audio(self, pcm: np.ndarray) -> list[bytes | str]:
        return [self.prefix + pcm.astype("<i2", copy=False).tobytes()]

    async def handle_message(self, message: bytes | str) -> None:
        if isinstance(message, bytes):
            if self.prefix:
                if not message.startswith(self.prefix):
                    return
                message = message[len(self.prefix) :]
            data = self._partial + message
            cut = len(data) - len(data) % 2  # a message may split a sample
            self._partial = data[cut:]
            await self.push_model_audio(np.frombuffer(data[:cut], dtype="<i2").astype(np.int16))
            return
        try:
            event = json.loads(message)
        except ValueError:
            logger.debug(f"{self}: ignoring non-JSON text message {message[:80]!r}")
            return
        kind = event.get("type") if isinstance(event, dict) else None
        if kind in self.clear_types:
            self._partial = b""
            await self.interrupt_output(str(kind))
        elif kind == "text":
            self.stats.text.append(str(event.get("text", "")))


class PcmSocketSettings(SocketSettings, KeyFromEnv):
    """The `websocket` config (module docstring)."""

    input_sample_rate: PcmRate = 16000
    output_sample_rate: PcmRate = 24000
    frame_ms: Literal[10, 20, 40, 60, 80, 100] = 20
    audio_prefix: int | None = Field(default=None, ge=0, le=255, strict=True)
    headers: dict[str, str | int | float] = Field(default_factory=dict)
    hello: dict[str, Any] | None = None
    """the first text message; not set: a ``start`` message naming the rates; null: none"""

    def start_message(self) -> dict[str, Any] | None:
        if "hello" in self.model_fields_set:
            return self.hello
        return {
            "type": "start",
            "input_sample_rate": self.input_sample_rate,
            "output_sample_rate": self.output_sample_rate,
            "encoding": "pcm_s16le",
        }


class WebSocketDuplexModel(DuplexSocketModel[PcmSocketSettings], name="websocket"):
    """A full-duplex model server speaking pcm-ws (see module docstring)."""

    protocol = "pcm-ws v1"

    def __init__(self, ctx: ModelContext) -> None:
        super().__init__(ctx)
        s = self.settings
        self._headers = {str(k): str(v) for k, v in s.headers.items()}
        key = s.api_key(self.name, required=s.api_key_env is not None)
        if key:
            self._headers["Authorization"] = f"Bearer {key}"

    def bridge(self, **endpoint: Any) -> PcmSocketProcessor:
        s = self.settings
        return PcmSocketProcessor(
            **endpoint,
            send_sample_rate=s.input_sample_rate,
            recv_sample_rate=s.output_sample_rate,
            headers=self._headers,
            frame_ms=s.frame_ms,
            hello=s.start_message(),
            audio_prefix=s.audio_prefix,
        )

    def card(self) -> dict[str, Any]:
        card = super().card()
        card.update(
            input_sample_rate=self.settings.input_sample_rate,
            output_sample_rate=self.settings.output_sample_rate,
        )
        return card
