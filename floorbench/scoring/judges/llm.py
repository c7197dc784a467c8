"""LLM judge on any OpenAI-compatible chat-completions endpoint.

Prompts are versioned files in ``floorbench/scoring/prompts/`` (``answer_v3.txt``,
``intrusion_v3.txt``: the assent-by-turn rule, completeness, contrast and paraphrase of
docs/scoring.md; v1 and v2 are kept for old caches); the judge's `prompt_version` is the
version plus a hash
of the prompt text, so an edited prompt never reuses old cached verdicts. The
API key is read from an environment variable (its *name* is configured, the
value is never stored or logged). A reply that is not the expected JSON or
word is `unparsable` (counted as a failure by the metrics); an endpoint that
keeps failing raises `JudgeError` rather than inventing verdicts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from floorbench import safe_http
from floorbench.redact import is_env_name, redact_url
from floorbench.scoring.judges import VERDICTS, JudgeError, JudgeInput, JudgeVerdict, OnVerdict, Task, Verdict

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
TEMPERATURE = 0


def load_prompts(version: str = "v3") -> dict[Task, str]:
    return {t: (PROMPTS / f"{t.value}_{version}.txt").read_text(encoding="utf-8") for t in Task}


PARSER_VERSION = "p2"
"""part of `prompt_version` (so of the cache key): p2 accepts only the exact reply forms
below; verdicts cached by p1, which read "Not correct." as correct, are never reused"""

_FENCE = re.compile(r"\A```(?:json)?\s*(.*?)\s*```\Z", flags=re.S | re.I)
_LONE_WORD = re.compile(r"""\A["'`*]*([A-Za-z]+)["'`*]*[.!]?\Z""")


def reply_body(text: str) -> str:
    """A judge's reply without its surrounding space and one Markdown code fence around it.

    Models wrap their JSON in a fence even when told not to, so the fence is taken off;
    prose around the answer is not, and leaves the reply unparsable (every judge's rule).
    """
    body = text.strip()
    fenced = _FENCE.match(body)
    return fenced.group(1) if fenced else body


def reply_object(body: str) -> dict[str, Any] | None:
    """The reply body as one JSON object; None when it is anything else (a judge then says `unparsable`)."""
    try:
        obj = json.loads(body)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def parse_reply(task: Task, text: str) -> JudgeVerdict:
    """The verdict in a model's reply, read only from the forms the prompt asks for.

    Accepted: the whole reply is one JSON object whose ``verdict`` is exactly an
    allowed word (case and surrounding spaces aside), optionally inside one
    Markdown code fence; or the whole reply is a lone allowed word (quotes and a
    final full stop aside). Anything else — prose around the JSON, "Not correct.",
    ``{"verdict": "not correct"}``, "It is NOT an intrusion", two verdicts — is
    `unparsable`, which the metrics count as a failure: a negation must never be
    read as the word it negates.
    """
    allowed = {v.value for v in VERDICTS[task]}
    body = reply_body(text)
    if body.startswith("{"):
        found = _json_verdict(body, allowed)
        if found is not None:
            return found
    else:
        word = _LONE_WORD.match(body)
        if word and word.group(1).lower() in allowed:
            return JudgeVerdict(Verdict(word.group(1).lower()), "verdict word without JSON", rule="llm.word")
    return JudgeVerdict(Verdict.unparsable, f"unreadable reply: {text[:120]!r}", rule="llm.unreadable")


def _json_verdict(body: str, allowed: set[str]) -> JudgeVerdict | None:
    """The verdict of a reply that is exactly one JSON object, else None."""
    obj = reply_object(body)
    if obj is None:
        return None
    verdict = obj.get("verdict")
    if not isinstance(verdict, str) or verdict.strip().lower() not in allowed:
        return None
    return JudgeVerdict(Verdict(verdict.strip().lower()), str(obj.get("reason", ""))[:300], rule="llm.json")


class LLMJudge:
    """Chat-completions judge; temperature 0; bounded concurrency and retries."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        prompt: str = "v3",
        concurrency: int = 4,
        timeout_s: float = 60.0,
        retries: int = 3,
    ) -> None:
        if not model:
            raise JudgeError("the LLM judge needs a model name: --judge llm:<model>")
        if not is_env_name(api_key_env):  # never repeated: a key pasted here by mistake would be
            raise JudgeError("--judge-key-env must name the environment variable holding the key "
                             "(letters, digits, _), not the key itself (the value is not shown)")
        self.model = model
        self.base_url = (base_url or os.environ.get("FLOORBENCH_JUDGE_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_env = api_key_env
        self.prompts = load_prompts(prompt)
        digest = hashlib.sha256("".join(self.prompts[t] for t in Task).encode()).hexdigest()[:8]
        self.name = f"llm:{model}"
        self.prompt_version = f"{prompt}-{digest}-{PARSER_VERSION}"
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.retries = retries

    def identity(self) -> dict[str, object]:
        """What, besides the model name and prompt version, changes a verdict: the endpoint
        (the same model name on another server is another judge) and the sampling settings.
        It enters the cache key only as part of a sha256 digest, never in clear."""
        return {"base_url": self.base_url, "temperature": TEMPERATURE}

    def settings(self) -> dict[str, object]:
        """What to record about this judge (no secrets)."""
        return {"model": self.model, "base_url": redact_url(self.base_url), "api_key_env": self.api_key_env}

    def render(self, inp: JudgeInput) -> str:
        return self.prompts[inp.task].format(
            context=inp.context or "(not given)",
            gold=inp.gold or "",
            aliases=", ".join(inp.aliases) or "(none)",
            transcript=inp.transcript,
        )

    def _post(self, prompt: str) -> str:
        return self.post_messages([{"role": "user", "content": prompt}])

    def post_messages(self, messages: list[dict[str, object]]) -> str:
        """One chat completion of `messages` (text, or content parts with images) at temperature 0; the
        reply's text ('' when the reply has none); `JudgeError` when the endpoint keeps failing."""
        key = os.environ.get(self.api_key_env, "")
        body = json.dumps({"model": self.model, "temperature": TEMPERATURE, "messages": messages}).encode()
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        last = ""
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, headers=headers)
            try:
                with safe_http.urlopen(req, timeout=self.timeout_s) as resp:
                    data = json.loads(resp.read().decode("utf-8"))
                return str(data["choices"][0]["message"]["content"] or "")
            except urllib.error.HTTPError as e:
                last = f"HTTP {e.code}"
                if e.code not in (408, 409, 429) and e.code < 500:
                    break
            except (urllib.error.URLError, TimeoutError, OSError) as e:
                last = type(e).__name__
            except (KeyError, IndexError, TypeError, json.JSONDecodeError):
                return ""
            if attempt < self.retries:
                time.sleep(min(8.0, 0.5 * 2**attempt))
        raise JudgeError(
            f"judge endpoint {redact_url(self.base_url)} failed ({last}); check --judge-base-url, the model name "
            f"and ${self.api_key_env}"
        )

    def judge(self, inputs: Sequence[JudgeInput], on_verdict: OnVerdict | None = None) -> list[JudgeVerdict]:
        """Verdicts in input order; each is handed to `on_verdict` (on this thread) as it arrives.

        On an endpoint failure no new request is started, the requests in flight are
        awaited (their verdicts are handed over too, so they are cached), then the first
        `JudgeError` is raised.
        """
        out: list[JudgeVerdict | None] = [None] * len(inputs)
        failure: JudgeError | None = None
        stop = threading.Event()

        def one(inp: JudgeInput) -> JudgeVerdict | None:
            if stop.is_set():
                return None  # the endpoint failed: no new request
            try:
                return self._one(inp)
            except JudgeError:
                stop.set()
                raise

        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            futures = {pool.submit(one, inp): n for n, inp in enumerate(inputs)}
            for fut in as_completed(futures):
                try:
                    verdict = fut.result()
                except JudgeError as e:
                    failure = failure or e
                    continue
                if verdict is not None:
                    out[futures[fut]] = verdict
                    if on_verdict is not None:
                        on_verdict(futures[fut], verdict)
        if failure is not None:
            raise failure
        return [v for v in out if v is not None]

    def _one(self, inp: JudgeInput) -> JudgeVerdict:
        return parse_reply(inp.task, self._post(self.render(inp)))
