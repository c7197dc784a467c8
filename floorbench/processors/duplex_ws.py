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

Example config (``configs/models/websocket-local.yaml``)::

    adapter: websocket
    url: ws://127.0.0.1:8765/
    input_sample_rate: 16000
    output_sample_rate: 24000
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
from loguru import logger

from floorbench.processors.adapter_config import get_float, get_int, public_url, secret_from_env, ws_url
from floorbench.processors.duplex_base import DuplexSocketProcessor
from floorbench.processors.registry import Model, ModelContext, ModelError

PCM_RATES = (8000, 16000, 22050, 24000, 32000, 44100, 48000)


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


class WebSocketDuplexModel(Model):
    """A full-duplex model server speaking pcm-ws (see module docstring)."""

    name: ClassVar[str] = "websocket"
    joins = "pipeline"

    def __init__(self, ctx: ModelContext) -> None:
        super().__init__(ctx)
        c, n = self.config, self.name
        self.url = ws_url(c, n)
        self.input_sample_rate = get_int(c, "input_sample_rate", n, 16000, PCM_RATES)
        self.output_sample_rate = get_int(c, "output_sample_rate", n, 24000, PCM_RATES)
        self.frame_ms = get_int(c, "frame_ms", n, 20, (10, 20, 40, 60, 80, 100))
        self.connect_timeout_s = get_float(c, "connect_timeout_s", n, 10.0)
        prefix = c.get("audio_prefix")
        if prefix is not None and not (isinstance(prefix, int) and 0 <= prefix <= 255):
            raise ModelError(f"model {n}: `audio_prefix` must be an integer 0-255 or null, got {prefix!r}")
        self.audio_prefix = prefix
        headers = c.get("headers") or {}
        if not isinstance(headers, dict):
            raise ModelError(f"model {n}: `headers` must be a mapping of header name to value")
        self._headers = {str(k): str(v) for k, v in headers.items()}
        key = secret_from_env(c, n, required=bool(c.get("api_key_env")))
        if key:
            self._headers["Authorization"] = f"Bearer {key}"
        default_hello = {
            "type": "start",
            "input_sample_rate": self.input_sample_rate,
            "output_sample_rate": self.output_sample_rate,
            "encoding": "pcm_s16le",
        }
        self.hello = c.get("hello", default_hello)
        if self.hello is not None and not isinstance(self.hello, dict):
            raise ModelError(f"model {n}: `hello` must be a JSON object or null")

    def processors(self) -> list:
        return [
            PcmSocketProcessor(
                url=self.url,
                send_sample_rate=self.input_sample_rate,
                recv_sample_rate=self.output_sample_rate,
                headers=self._headers,
                connect_timeout_s=self.connect_timeout_s,
                frame_ms=self.frame_ms,
                hello=self.hello,
                audio_prefix=self.audio_prefix,
                name="websocket-model",
            )
        ]

    def card(self) -> dict[str, Any]:
        card = super().card()
        card.update(
            model_id=self.config.get("model_id", "unknown (set `model_id` in the config)"),
            endpoint=public_url(self.url),
            protocol="pcm-ws v1",
            input_sample_rate=self.input_sample_rate,
            output_sample_rate=self.output_sample_rate,
        )
        return card
