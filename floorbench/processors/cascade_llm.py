"""The cascade's optional LLM responder: any OpenAI-compatible chat-completions endpoint.

Configured under ``llm:`` in the cascade's config (key from an env var, never
the config). The LLM sees what the cascade's ASR heard — one line per
utterance, with the assistant's own answers — and the latest utterance; it
answers in one or two short sentences, or with the single word SILENT.

An LLM the cascade cannot reach would leave it answering with its rules while
the run card names the LLM, so `LLMLink` (first in the cascade's chain) asks
the endpoint once when the pipeline starts (`LLMResponder.check`): unreachable,
or refusing the key, is an ``ErrorFrame`` (the scenario fails with
``model_error``); reachable is ``on_model_connected`` (the runner waits for it
before the humans speak). A failed reply later is an error too (the cascade
pushes it), not a silent fallback.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pipecat.frames.frames import Frame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pydantic import Field, field_validator

from floorbench import safe_http
from floorbench.processors.adapter_config import KeyFromEnv, ModelError, public_url
from floorbench.processors.cascade_text import Heard
from floorbench.processors.cascade_tools import ToolRules, openai_tools, run_tool_calls
from floorbench.redact import redact_url

SYSTEM_PROMPT = (
    "You are {name}, a voice assistant listening to a room where several people talk. "
    "You receive an automatic transcript (it has errors; it has no speaker names). "
    "Answer only when someone directly asks you something you can answer, using what was said "
    "earlier in the room; keep the answer to one or two short spoken sentences, digits as words "
    "are fine. If people talk to each other, to another device, to themselves, or only mention "
    "you, reply with exactly SILENT."
)

MAX_TOOL_ROUNDS = 3
"""tool-call rounds in one reply before the model's last words are taken as they are"""


class LLMSettings(KeyFromEnv):
    """The cascade's ``llm:`` block."""

    base_url: str
    """an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1"""
    model: str = Field(pattern=r"\S")
    timeout_s: float = Field(default=8.0, ge=0.5)
    max_tokens: int = Field(default=80, ge=1)
    temperature: float = Field(default=0.0, ge=0)
    decides_addressing: bool = False
    """ask the LLM on every utterance (not only those the rules call addressed)"""

    @field_validator("base_url")
    @classmethod
    def _http(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"must be an http(s) URL, got {redact_url(url)!r}")
        return url.rstrip("/")


@dataclass
class LLMResponder:
    settings: LLMSettings
    api_key: str | None
    tools: ToolRules | None = None
    """the trial's mock tools, offered to the model as functions (set by the cascade at start)"""

    @classmethod
    def from_settings(cls, settings: LLMSettings, model_name: str) -> LLMResponder:
        """The responder, with its key read from the environment now (a missing key fails before any room)."""
        return cls(settings, settings.api_key(f"{model_name} llm", required=settings.api_key_env is not None))

    @classmethod
    def from_config(cls, config: dict[str, Any], model_name: str) -> LLMResponder:
        """From an ``llm:`` mapping alone (tests, tools); the cascade reads it as part of its settings."""
        if not isinstance(config, dict):
            raise ModelError(f"model {model_name}: `llm` must be a mapping with base_url and model")
        return cls.from_settings(LLMSettings.load(config, f"{model_name} llm"), model_name)

    @property
    def decides_addressing(self) -> bool:
        return self.settings.decides_addressing

    def card(self) -> dict[str, Any]:
        return {
            "endpoint": public_url(self.settings.base_url),
            "model": self.settings.model,
            "decides_addressing": self.decides_addressing,
        }

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    async def check(self, model_name: str) -> str | None:
        """None if the endpoint answers and takes the key; else the one-line reason naming the fix.

        Asks ``GET {base_url}/models`` (cheap, no tokens): any HTTP answer but 401/403
        means the server is there (not every server lists models).
        """
        import aiohttp

        where = f"{public_url(self.settings.base_url)}"
        timeout = aiohttp.ClientTimeout(total=self.settings.timeout_s)
        try:
            async with aiohttp.ClientSession(timeout=timeout) as session:
                async with safe_http.request(session, "GET", f"{self.settings.base_url}/models",
                                             headers=self._headers()) as r:
                    status = r.status
        except (aiohttp.ClientError, TimeoutError, OSError) as e:
            return (
                f"{model_name} llm: cannot reach {where} ({type(e).__name__}: {e}); "
                "start the LLM server or fix `llm.base_url` in the model config"
            )
        if status in (401, 403):
            env = self.settings.api_key_env or "api_key_env"
            return f"{model_name} llm: {where} refused the key (HTTP {status}); check `llm.api_key_env` ({env})"
        return None

    def messages(
        self, name: str, history: list[Heard], spoken: list[str], latest: str
    ) -> list[dict[str, str]]:
        lines = [f"[{h.start_ms / 1000:.1f}s] {h.text}" for h in history[-40:]]
        said = "\n".join(f"- {s}" for s in spoken[-5:]) or "(nothing yet)"
        user = (
            "Transcript so far:\n" + ("\n".join(lines) or "(nothing)") + f"\n\nYou have said:\n{said}\n\n"
            f"Latest utterance: {latest}\n\nYour spoken reply, or SILENT:"
        )
        return [
            {"role": "system", "content": SYSTEM_PROMPT.format(name=name)},
            {"role": "user", "content": user},
        ]

    async def reply(
        self, name: str, history: list[Heard], spoken: list[str], latest: str
    ) -> tuple[str | None, int]:
        """(text or None for silence, ms taken). Failures → None, logged by the caller."""
        import aiohttp

        headers = self._headers()
        s = self.settings
        messages: list[dict[str, Any]] = list(self.messages(name, history, spoken, latest))
        body: dict[str, Any] = {"model": s.model, "messages": messages, "max_tokens": s.max_tokens,
                                "temperature": s.temperature}
        if self.tools is not None and self.tools.tools:
            body["tools"] = openai_tools(self.tools.tools)
        t0 = time.monotonic()
        timeout = aiohttp.ClientTimeout(total=s.timeout_s)
        message: dict[str, Any] = {}
        async with aiohttp.ClientSession(timeout=timeout) as session:
            for _ in range(MAX_TOOL_ROUNDS + 1):
                async with safe_http.request(session, "POST", f"{s.base_url}/chat/completions", json=body,
                                             headers=headers) as r:
                    if r.status != 200:
                        raise RuntimeError(f"LLM endpoint {public_url(s.base_url)} answered HTTP {r.status}")
                    data = await r.json()
                message = data["choices"][0]["message"]
                calls = message.get("tool_calls") or []
                if not calls or self.tools is None:
                    break
                # the model asked for tools: run them on the mock, hand back the results, ask again
                messages.append({"role": "assistant", "content": message.get("content"), "tool_calls": calls})
                messages.extend(await run_tool_calls(self.tools.base, calls))
        text = str(message.get("content") or "").strip()
        ms = int((time.monotonic() - t0) * 1000)
        if not text or text.strip(" .!\"'").upper() == "SILENT":
            return None, ms
        return text, ms


class LLMLink(FrameProcessor):
    """Checks the cascade's LLM endpoint when the pipeline starts (module docstring)."""

    reports_connection: bool = True

    def __init__(self, responder: LLMResponder, model_name: str) -> None:
        super().__init__(name=f"{model_name}-llm-link")
        self.responder = responder
        self.model_name = model_name
        self._register_event_handler("on_model_connected")
        self._register_event_handler("on_model_disconnected")

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self.create_task(self._check(), name=f"{self.name}-check")

    async def _check(self) -> None:
        reason = await self.responder.check(self.model_name)
        if reason is None:
            await self._call_event_handler("on_model_connected")
        else:
            await self.push_error(reason)
