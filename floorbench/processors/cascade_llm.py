"""The cascade's optional LLM responder: any OpenAI-compatible chat-completions endpoint.

Configured under ``llm:`` in the cascade's config (key from an env var, never
the config). The LLM sees what the cascade's ASR heard — one line per
utterance, with the assistant's own answers — and the latest utterance; it
answers in one or two short sentences, or with the single word SILENT.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from floorbench.processors.adapter_config import get_float, get_str, public_url, secret_from_env
from floorbench.processors.cascade_text import Heard
from floorbench.processors.registry import ModelError

SYSTEM_PROMPT = (
    "You are {name}, a voice assistant listening to a room where several people talk. "
    "You receive an automatic transcript (it has errors; it has no speaker names). "
    "Answer only when someone directly asks you something you can answer, using what was said "
    "earlier in the room; keep the answer to one or two short spoken sentences, digits as words "
    "are fine. If people talk to each other, to another device, to themselves, or only mention "
    "you, reply with exactly SILENT."
)


@dataclass
class LLMResponder:
    base_url: str
    model: str
    api_key: str | None
    timeout_s: float = 8.0
    max_tokens: int = 80
    temperature: float = 0.0
    decides_addressing: bool = False
    """ask the LLM on every utterance (not only those the rules call addressed)"""

    @classmethod
    def from_config(cls, config: dict[str, Any], model_name: str) -> LLMResponder:
        c = config
        if not isinstance(c, dict):
            raise ModelError(f"model {model_name}: `llm` must be a mapping with base_url and model")
        base = get_str(c, "base_url", f"{model_name} llm")
        if not base.startswith(("http://", "https://")):
            raise ModelError(f"model {model_name}: `llm.base_url` must be an http(s) URL, got {base!r}")
        return cls(
            base_url=base.rstrip("/"),
            model=get_str(c, "model", f"{model_name} llm"),
            api_key=secret_from_env(c, f"{model_name} llm", required=bool(c.get("api_key_env"))),
            timeout_s=get_float(c, "timeout_s", model_name, 8.0, minimum=0.5),
            max_tokens=int(c.get("max_tokens", 80)),
            temperature=float(c.get("temperature", 0.0)),
            decides_addressing=bool(c.get("decides_addressing", False)),
        )

    def card(self) -> dict[str, Any]:
        return {
            "endpoint": public_url(self.base_url),
            "model": self.model,
            "decides_addressing": self.decides_addressing,
        }

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

        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        body = {
            "model": self.model,
            "messages": self.messages(name, history, spoken, latest),
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
        }
        t0 = time.monotonic()
        timeout = aiohttp.ClientTimeout(total=self.timeout_s)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.post(f"{self.base_url}/chat/completions", json=body, headers=headers) as r:
                if r.status != 200:
                    raise RuntimeError(f"LLM endpoint {public_url(self.base_url)} answered HTTP {r.status}")
                data = await r.json()
        text = str(data["choices"][0]["message"]["content"] or "").strip()
        ms = int((time.monotonic() - t0) * 1000)
        if not text or text.strip(" .!\"'").upper() == "SILENT":
            return None, ms
        return text, ms
