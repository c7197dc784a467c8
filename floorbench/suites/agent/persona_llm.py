"""The persona's mind: the prompt, the done marker, and the OpenAI-compatible endpoint that plays it.

The endpoint gets the persona, its goal and its end condition as the system
message, then the call so far: what the agent said (live ASR: it has errors)
as ``user`` messages and the persona's own lines as ``assistant`` messages.
It answers with the caller's next spoken line; when the end condition holds
it adds the done marker ``[DONE]`` (anywhere in the reply, any case). A reply
that is only the marker ends the call without a line. A reply that is a JSON
object ``{"say": "...", "done": true}`` is read too, for endpoints that
prefer structured output.

`ChatEndpoint` asks the endpoint with aiohttp through `floorbench.safe_http`
(credentials never follow a redirect to another origin). Every failure is a
`PersonaEndpointError` whose one-line reason is redacted (URL user-info and
query, ``Bearer`` values, a masked key a provider echoes, the key itself)
before anything records it.

Which key goes where is the operator's alone (`PersonaBinding`): a test file
or a suite names an endpoint but never a key or its variable, and a key is
sent only to the URL given on the command line (``--persona-url``, or
FLOORBENCH_PERSONA_URL), read from the variable the command line names
(``--persona-key-env``) or else from FLOORBENCH_PERSONA_KEY. Without that URL
the file's endpoint is asked with no key at all (a local stand-in).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Protocol

from floorbench import safe_http
from floorbench.processors.adapter_config import public_url
from floorbench.redact import redact_text
from floorbench.safe_http import PERSONA, KeyBinding
from floorbench.suites.agent.schema import Persona, PersonaEndpoint

DONE_MARKER = "[DONE]"
_DONE = re.compile(r"\[\s*done\s*\]", re.IGNORECASE)
NOTHING_HEARD = "(the agent said nothing)"
CALL_STARTED = "(the call has started; the agent has not spoken yet)"

SYSTEM_PROMPT = """You are playing a caller on a phone call with a voice agent, to test it.
You are: {persona}
Your goal: {goal}
You are done when: {end_when}

Rules:
- Answer with exactly one short spoken line (one or two sentences), the words only: no stage
  directions, no quotes, no lists.
- The agent's words reach you through automatic speech recognition and may contain errors.
- Stay in character; do not mention that you are a test or a language model.
- When you are done, say a short closing line and end your reply with {marker}. Write {marker}
  only then."""


class PersonaEndpointError(RuntimeError):
    """The endpoint could not give a line; the message is one redacted line with the reason."""


class PersonaBinding(KeyBinding):
    """The operator's binding of a key to the persona's endpoint (`floorbench.safe_http.KeyBinding`, with
    ``--persona-url``/``--persona-key-env`` and FLOORBENCH_PERSONA_URL/_KEY): every persona step goes to
    `url` (None: the file's endpoint, asked without a key), with the key in `key_env` (None: no key)."""

    names = PERSONA

    def endpoint(self, cfg: PersonaEndpoint) -> ChatEndpoint:
        """The persona's endpoint: the operator's URL with its key, else the file's with none."""
        if self.url is None:
            return ChatEndpoint(cfg)
        return ChatEndpoint(cfg.model_copy(update={"base_url": self.url}), key_env=self.key_env)


class PersonaBrain(Protocol):
    """Who writes the persona's lines (`ChatEndpoint`; a fake in unit tests)."""

    def card(self) -> dict[str, Any]:
        """what it is, for meta.json (no key)"""
        ...

    async def reply(self, messages: list[dict[str, str]]) -> str:
        """the endpoint's raw reply text; `PersonaEndpointError` when it gives none"""
        ...


def system_prompt(p: Persona) -> str:
    return SYSTEM_PROMPT.format(persona=p.persona or "an ordinary caller", goal=p.goal,
                                end_when=p.end_when or "your goal is reached", marker=DONE_MARKER)


def messages(p: Persona, history: list[tuple[str, str]]) -> list[dict[str, str]]:
    """The chat for the next line: `history` is the call so far, ("agent" | "caller", text), oldest first."""
    out = [{"role": "system", "content": system_prompt(p)}]
    if not history or history[0][0] != "agent":
        out.append({"role": "user", "content": CALL_STARTED})
    for who, text in history:
        out.append({"role": "user" if who == "agent" else "assistant", "content": text or NOTHING_HEARD})
    return out


def parse_reply(text: str) -> tuple[str, bool]:
    """(the line to speak, whether the persona is done) from the endpoint's reply."""
    raw = text.strip()
    if raw.startswith("{"):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("say", ""), str):
            return " ".join(str(data.get("say") or "").split()), bool(data.get("done"))
    done = _DONE.search(raw) is not None
    line = " ".join(_DONE.sub(" ", raw).split()).strip().strip('"').strip()
    return line, done


class ChatEndpoint:
    """An OpenAI-compatible ``POST {base_url}/chat/completions``; the key from the environment, per call."""

    def __init__(self, cfg: PersonaEndpoint, key_env: str | None = None) -> None:
        self.cfg = cfg
        self.key_env = key_env
        """the operator's variable (`PersonaBinding`); None: no key is sent"""

    def card(self) -> dict[str, Any]:
        c = self.cfg
        return {"base_url": public_url(c.base_url), "model": c.model, "api_key_env": self.key_env,
                "timeout_s": c.timeout_s, "temperature": c.temperature, "max_tokens": c.max_tokens}

    def _key(self) -> str | None:
        var = self.key_env
        if var is None:
            return None
        key = os.environ.get(var, "")
        if not key:
            raise PersonaEndpointError(f"environment variable {var} is not set; export {var}=<the endpoint's key>")
        return key

    async def reply(self, messages: list[dict[str, str]]) -> str:
        import aiohttp

        c = self.cfg
        where = public_url(c.base_url)
        key = self._key()
        headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {key}"} if key else {})
        body = {"model": c.model, "messages": messages, "temperature": c.temperature, "max_tokens": c.max_tokens}
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=c.timeout_s)) as session:
                async with safe_http.request(session, "POST", f"{c.base_url}/chat/completions", json=body,
                                             headers=headers) as r:
                    if r.status != 200:
                        detail = (await r.text())[:200]
                        raise PersonaEndpointError(redact_text(
                            f"{where} answered HTTP {r.status}: {' '.join(detail.split())}", [key or ""]))
                    data = await r.json(content_type=None)
        except PersonaEndpointError:
            raise
        except TimeoutError:
            raise PersonaEndpointError(f"{where} gave no reply within {c.timeout_s:g} s (timeout_s)") from None
        except (aiohttp.ClientError, OSError, ValueError) as e:
            raise PersonaEndpointError(redact_text(f"cannot reach {where} ({type(e).__name__}: {e})", [key or ""])) from None
        try:
            return str(data["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError):
            raise PersonaEndpointError(f"{where}: the reply has no choices[0].message.content; is it an "
                                       "OpenAI-compatible chat endpoint?") from None
