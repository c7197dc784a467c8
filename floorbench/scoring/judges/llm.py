"""LLM judge on any OpenAI-compatible chat-completions endpoint.

Prompts are versioned files in ``floorbench/scoring/prompts/`` (``answer_v1.txt``,
``intrusion_v1.txt``); the judge's `prompt_version` is the version plus a hash
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
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from floorbench.scoring.judges import VERDICTS, JudgeError, JudgeInput, JudgeVerdict, Task, Verdict

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def load_prompts(version: str = "v1") -> dict[Task, str]:
    return {t: (PROMPTS / f"{t.value}_{version}.txt").read_text(encoding="utf-8") for t in Task}


def parse_reply(task: Task, text: str) -> JudgeVerdict:
    """The verdict in a model's reply: a JSON object, else a lone allowed word."""
    allowed = {v.value for v in VERDICTS[task]}
    m = re.search(r"\{.*\}", text, flags=re.S)
    if m:
        try:
            obj = json.loads(m.group(0))
            v = str(obj.get("verdict", "")).strip().lower()
            if v in allowed:
                return JudgeVerdict(Verdict(v), str(obj.get("reason", ""))[:300])
        except (json.JSONDecodeError, AttributeError):
            pass
    words = set(re.findall(r"[a-z]+", text.lower())) & allowed
    if len(words) == 1:
        return JudgeVerdict(Verdict(words.pop()), "verdict word without JSON")
    return JudgeVerdict(Verdict.unparsable, f"unreadable reply: {text[:120]!r}")


class LLMJudge:
    """Chat-completions judge; temperature 0; bounded concurrency and retries."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        prompt: str = "v1",
        concurrency: int = 4,
        timeout_s: float = 60.0,
        retries: int = 3,
    ) -> None:
        if not model:
            raise JudgeError("the LLM judge needs a model name: --judge llm:<model>")
        self.model = model
        self.base_url = (base_url or os.environ.get("FLOORBENCH_JUDGE_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_env = api_key_env
        self.prompts = load_prompts(prompt)
        digest = hashlib.sha256("".join(self.prompts[t] for t in Task).encode()).hexdigest()[:8]
        self.name = f"llm:{model}"
        self.prompt_version = f"{prompt}-{digest}"
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.retries = retries

    def settings(self) -> dict[str, object]:
        """What to record about this judge (no secrets)."""
        return {"model": self.model, "base_url": self.base_url, "api_key_env": self.api_key_env}

    def render(self, inp: JudgeInput) -> str:
        return self.prompts[inp.task].format(
            context=inp.context or "(not given)",
            gold=inp.gold or "",
            aliases=", ".join(inp.aliases) or "(none)",
            transcript=inp.transcript,
        )

    def _post(self, prompt: str) -> str:
        key = os.environ.get(self.api_key_env, "")
        body = json.dumps(
            {
                "model": self.model,
                "temperature": 0,
                "messages": [{"role": "user", "content": prompt}],
            }
        ).encode()
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        last = ""
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
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
            time.sleep(min(8.0, 0.5 * 2**attempt))
        raise JudgeError(
            f"judge endpoint {self.base_url} failed ({last}); check --judge-base-url, the model name "
            f"and ${self.api_key_env}"
        )

    def judge(self, inputs: Sequence[JudgeInput]) -> list[JudgeVerdict]:
        def one(inp: JudgeInput) -> JudgeVerdict:
            return parse_reply(inp.task, self._post(self.render(inp)))

        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            return list(pool.map(one, inputs))
