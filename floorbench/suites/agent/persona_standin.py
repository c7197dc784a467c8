"""A stand-in persona endpoint that needs no key: a deterministic, scripted OpenAI-compatible server.

``floorbench persona-standin --script FILE --port N`` serves
``POST /v1/chat/completions`` (and ``GET /v1/models``) on 127.0.0.1, so
persona tests run offline and in CI (docs/callers.md). It plays a script, a
YAML file::

    rules:                     # first match wins, on the agent's last message (whole words, case ignored)
      - contains: [five]       # every word or phrase must be in it
        say: Great, that is what I counted too. Thank you, goodbye.
        done: true             # the reply carries the done marker
    lines:                     # otherwise: the first of these the caller has not said yet, in order
      - Aria, how many pieces of fruit did I buy altogether?
    out_of_lines: Sorry, I have to go. Goodbye.   # when every line was said (default: the last line again)

It reads only the chat's last ``user`` message (what the agent said) and the
``assistant`` messages (what the caller already said), so the same call gets
the same replies whatever the model, temperature or prompt.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.suites.agent.persona_llm import DONE_MARKER
from floorbench.suites.agent.words import says

SCRIPT_KEYS = ("rules", "lines", "out_of_lines")
RULE_KEYS = ("contains", "say", "done")


class StandinError(ValueError):
    """A bad script: one line naming the file, the item and the fix."""


@dataclass(frozen=True)
class StandinRule:
    contains: list[str]
    say: str
    done: bool = False


@dataclass(frozen=True)
class StandinScript:
    rules: list[StandinRule] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    out_of_lines: str | None = None

    def reply(self, messages: list[dict[str, Any]]) -> str:
        """The caller's next line for this chat (with the done marker when a `done` rule matched)."""
        heard = next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"), "")
        said = {" ".join(str(m.get("content") or "").split()).lower() for m in messages if m.get("role") == "assistant"}
        for r in self.rules:
            if all(says(heard, w) for w in r.contains):
                return f"{r.say} {DONE_MARKER}" if r.done else r.say
        for line in self.lines:
            if " ".join(line.split()).lower() not in said:
                return line
        return self.out_of_lines or (self.lines[-1] if self.lines else DONE_MARKER)


def load_script(path: Path) -> StandinScript:
    from floorbench.scenarios.validate import ScenarioError, read_yaml

    try:
        data = read_yaml(path)
    except ScenarioError as e:
        raise StandinError(str(e)) from None
    if not isinstance(data, dict) or not any(k in data for k in ("rules", "lines")):
        raise StandinError(f"{path}: expected a mapping with rules: and/or lines: (docs/callers.md)")
    for k in data:
        if k not in SCRIPT_KEYS:
            raise StandinError(f"{path}: unknown key {k!r}; use {', '.join(SCRIPT_KEYS)}")
    rules = []
    if not isinstance(data.get("rules") or [], list):
        raise StandinError(f"{path}: rules must be a list of {{contains: [WORDS], say: TEXT, done: true|false}}")
    for i, r in enumerate(data.get("rules") or [], 1):
        if not isinstance(r, dict) or not isinstance(r.get("say"), str) or set(r) - set(RULE_KEYS):
            raise StandinError(f"{path}: rule {i}: write {{contains: [WORDS], say: TEXT, done: true|false}}")
        if not isinstance(r.get("done", False), bool):  # the string "false" is not read as true
            raise StandinError(f"{path}: rule {i}: done must be true or false (unquoted)")
        words = r.get("contains") or []
        words = [words] if isinstance(words, str) else words
        if not words or not all(isinstance(w, str) and w.strip() for w in words):
            raise StandinError(f"{path}: rule {i}: contains must be a word or a list of words")
        rules.append(StandinRule([str(w) for w in words], r["say"], r.get("done", False)))
    lines = data.get("lines") or []
    if not isinstance(lines, list) or not all(isinstance(x, str) and x.strip() for x in lines):
        raise StandinError(f"{path}: lines must be a list of sentences")
    out = data.get("out_of_lines")
    if out is not None and not isinstance(out, str):
        raise StandinError(f"{path}: out_of_lines must be a sentence")
    return StandinScript(rules, list(lines), out)


def completion(text: str, model: str) -> dict[str, Any]:
    """An OpenAI chat-completions response body."""
    return {"id": f"standin-{time.monotonic_ns()}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def app(script: StandinScript) -> Any:
    """The aiohttp application: POST /v1/chat/completions, GET /v1/models."""
    from aiohttp import web

    async def chat(request: web.Request) -> web.Response:
        try:
            body = await request.json()
            msgs = body["messages"]
            if not isinstance(msgs, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": {"message": "expected a JSON body with messages: [...]"}}, status=400)
        return web.json_response(completion(script.reply(msgs), str(body.get("model") or "standin")))

    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "standin", "object": "model"}]})

    a = web.Application()
    a.router.add_post("/v1/chat/completions", chat)
    a.router.add_get("/v1/models", models)
    return a


async def start(script: StandinScript, host: str = "127.0.0.1", port: int = 0) -> tuple[Any, str]:
    """Serve `script`; (the runner, to clean up; the base URL, ``http://HOST:PORT/v1``)."""
    from aiohttp import web

    runner = web.AppRunner(app(script), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    server = site._server  # the bound port, when 0 was asked for
    sockets = getattr(server, "sockets", None) or []
    bound = sockets[0].getsockname()[1] if sockets else port
    return runner, f"http://{host}:{bound}/v1"


def serve(script: Path, port: int = 8088, host: str = "127.0.0.1") -> None:
    """`floorbench persona-standin`: serve until interrupted; the first stdout line is the base URL."""
    loaded = load_script(script)

    async def main() -> None:
        runner, url = await start(loaded, host, port)
        print(f"persona stand-in: {url} (script {script})", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
