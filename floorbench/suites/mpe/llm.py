"""LLM-backed generator (optional): any OpenAI-compatible chat endpoint writes the turns.

The procedural generator still draws the attributes, the humans and their
voices, and the label sequence (deterministic for a seed); the model only
writes the words. Its output is turned into the same `Scenario` records and
goes through the same validator as everything else, plus two checks of its
own (the label sequence it was asked for; the request names Aria only in the
explicit version). Rejected outputs are reported with the reason and kept in
`rejected.jsonl` for inspection. Prompts are versioned files in `prompts/`.

Config (YAML):

    base_url: http://localhost:8000/v1   # any OpenAI-compatible endpoint
    model: my-model
    api_key_env: OPENAI_API_KEY          # optional; the key is read from the environment
    prompt: mpe_pair_v1                  # file prompts/<prompt>.md
    temperature: 0.8
    max_tokens: 3000
    timeout_s: 120
    attempts: 2                          # tries per pair before it is reported as rejected
"""

from __future__ import annotations

import json
import os
import random
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from floorbench import safe_http
from floorbench.paths import prepare_out
from floorbench.redact import is_env_name, redact_text, redact_url
from floorbench.scenarios.files import write_scenario, write_suite, write_text_atomic
from floorbench.scenarios.schema import Preamble, Suite
from floorbench.scenarios.validate import ScenarioError, read_yaml
from floorbench.suites.mpe.schema import Label, Scenario
from floorbench.suites.mpe.validate import check_pair, check_scenario, parse_scenario

PROMPT_DIR = Path(__file__).parent / "prompts"


class LLMConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str
    model: str
    api_key_env: str | None = None
    prompt: str = "mpe_pair_v1"
    temperature: float = 0.8
    max_tokens: int = 3000
    timeout_s: float = 120.0
    attempts: int = 2

    @field_validator("api_key_env")
    @classmethod
    def _a_name(cls, name: str | None) -> str | None:
        if name is not None and not is_env_name(name):
            raise ValueError("must name an environment variable (letters, digits, _), not hold the key")
        return name


def load_config(path: Path) -> LLMConfig:
    data = read_yaml(path)
    try:
        cfg = LLMConfig.model_validate(data)
    except ValidationError as err:
        e = err.errors()[0]
        loc = ".".join(str(x) for x in e["loc"]) or "(config)"
        raise ScenarioError(f"{path}: {loc}: {e['msg']}; fix the LLM config") from None
    if not (PROMPT_DIR / f"{cfg.prompt}.md").is_file():
        have = ", ".join(sorted(p.stem for p in PROMPT_DIR.glob("*.md")))
        raise ScenarioError(f"{path}: prompt {cfg.prompt!r} not found; use one of {have}")
    if cfg.api_key_env and not os.environ.get(cfg.api_key_env):
        raise ScenarioError(f"{path}: environment variable {cfg.api_key_env} is not set; export the key")
    return cfg


@dataclass
class LLMResult:
    written: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def chat(cfg: LLMConfig, prompt: str) -> str:
    """One chat completion; returns the message text or raises ScenarioError (one line)."""
    body = json.dumps({
        "model": cfg.model, "temperature": cfg.temperature, "max_tokens": cfg.max_tokens,
        "messages": [{"role": "user", "content": prompt}],
    }).encode()
    headers = {"Content-Type": "application/json"}
    if cfg.api_key_env:
        headers["Authorization"] = f"Bearer {os.environ.get(cfg.api_key_env, '')}"
    req = urllib.request.Request(cfg.base_url.rstrip("/") + "/chat/completions", data=body, headers=headers)
    try:
        with safe_http.urlopen(req, timeout=cfg.timeout_s) as resp:
            data = json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        raise ScenarioError(f"{redact_url(cfg.base_url)}: HTTP {e.code} {e.reason}; check model, key and URL") from None
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        raise ScenarioError(f"{redact_url(cfg.base_url)}: cannot reach the endpoint ({redact_text(str(e))}); check base_url") from None
    except json.JSONDecodeError:
        raise ScenarioError(f"{redact_url(cfg.base_url)}: the reply is not JSON; is this an OpenAI-compatible endpoint?") from None
    try:
        return str(data["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError):
        raise ScenarioError(f"{redact_url(cfg.base_url)}: reply without choices[0].message.content; check the endpoint") from None


def extract_json(text: str) -> Any:
    """The JSON object in a model reply (tolerates code fences and text around it)."""
    m = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.S)
    blob = m.group(1) if m else text[text.find("{"): text.rfind("}") + 1]
    if not blob:
        raise ValueError("no JSON object in the reply")
    return json.loads(blob)


def build_prompt(template: str, assistant: str, attrs: dict, speakers: dict, labels: list[Label]) -> str:
    values = {
        "assistant": assistant,
        "attributes": "\n".join(f"- {k.replace('_', ' ')}: {v}" for k, v in attrs.items()),
        "speakers": "\n".join(f"- {sid}: {sp['name']}" for sid, sp in speakers.items()),
        "n_turns": str(len(labels)),
        "labels": ", ".join(lab.value for lab in labels),
    }
    out = template
    for k, v in values.items():
        out = out.replace("{{" + k + "}}", v)
    return out


def pair_from_reply(reply: Any, pair_id: str, attrs: dict, speakers: dict, labels: list[Label],
                    meta: dict, assistant: str = "Aria") -> tuple[Scenario, Scenario]:
    """Turn a model reply into the explicit/implicit scenarios, validated; ScenarioError says why not."""
    where = Path(f"<llm {pair_id}>")
    if not isinstance(reply, dict) or not isinstance(reply.get("turns"), list):
        raise ScenarioError(f"{where}: reply has no 'turns' list; the model ignored the format")
    raw = reply["turns"]
    got = [str(t.get("label")) if isinstance(t, dict) else "?" for t in raw]
    want = [lab.value for lab in labels]
    if got != want:
        raise ScenarioError(f"{where}: labels {','.join(got)} but asked for {','.join(want)}; the model broke the sequence")
    turns = []
    t_index = want.index("T")
    implicit_text = None
    for i, t in enumerate(raw):
        d = {"id": i + 1, "speaker": t.get("speaker"), "label": t.get("label"), "text": t.get("text")}
        for k in ("gold", "attempt"):
            if t.get(k) is not None:
                d[k] = t[k]
        if i == t_index:
            implicit_text = t.get("implicit_text")
        turns.append(d)
    if not isinstance(implicit_text, str) or not implicit_text.strip():
        raise ScenarioError(f"{where}: turn {t_index + 1}: T has no implicit_text; the implicit request is missing")
    base = {"pair_id": pair_id, "attributes": attrs, "speakers": speakers, "meta": meta}
    ex = parse_scenario(where, {**base, "scenario_id": f"{pair_id}-explicit", "condition": "explicit", "turns": turns})
    im_turns = [dict(t) for t in turns]
    im_turns[t_index]["text"] = implicit_text
    prev = reply.get("implicit_previous_text")
    if isinstance(prev, str) and prev.strip() and t_index > 0:
        im_turns[t_index - 1]["text"] = prev
    im = parse_scenario(where, {**base, "scenario_id": f"{pair_id}-implicit", "condition": "implicit", "turns": im_turns})
    diff = sorted(a.id for a, b in zip(ex.turns, im.turns, strict=True) if a.text != b.text)
    ex.differs = diff
    im.differs = diff
    for s in (ex, im):
        check_scenario(s, where)
        for t in s.turns:
            if t.label is Label.N4Q and not (t.attempt and len(t.attempt.split()) >= 12):
                raise ScenarioError(f"{where}: scenario {s.scenario_id}: turn {t.id}: N4Q attempt shorter than 12 words; "
                                    "the oracle needs > 3.5 s of speech")
    check_pair(ex, im, where, assistant=assistant)
    return ex, im


def generate_with_llm(cfg: LLMConfig, out: Path, pairs: int, seed: int, force: bool = False,
                      progress=None) -> LLMResult:
    """Write up to `pairs` LLM-written pairs to the suite folder `out`; report the rejected ones."""
    from floorbench.suites.mpe.generate import DUTY_PREAMBLE, GenConfig, GeneratedPair
    from floorbench.suites.mpe.vocab import PREAMBLE_VOICE

    template = (PROMPT_DIR / f"{cfg.prompt}.md").read_text(encoding="utf-8")
    out = Path(out)
    (scen_dir,) = prepare_out(out, ("scenarios",), force, ScenarioError)
    result = LLMResult()
    rejected_lines: list[str] = []
    for i in range(pairs):
        pair_id = f"llm-s{seed}-{i:05d}"
        rng = random.Random(f"floorbench-llm:{seed}:{i}")
        draft = GeneratedPair(rng, pair_id, GenConfig(), set())
        labels, _ = draft.layout(3)
        attrs = {"location": draft.location, "activity": draft.activity.name, "relationship": draft.relationship.name,
                 "device_context": draft.device.name, "register": draft.register.name}
        prompt = build_prompt(template, "Aria", attrs, draft.speakers, labels)
        meta = {"generator": "llm", "prompt": cfg.prompt, "model": cfg.model}
        reason = ""
        text = ""
        for _attempt in range(max(1, cfg.attempts)):
            try:
                text = chat(cfg, prompt)
                reply = extract_json(text)
                ex, im = pair_from_reply(reply, pair_id, attrs, draft.speakers, labels, meta)
            except ValueError as e:  # ScenarioError is a ValueError, so is a JSON error
                reason = str(e) if isinstance(e, ScenarioError) else f"<llm {pair_id}>: reply is not valid JSON ({e})"
                continue
            for s in (ex, im):
                write_scenario(scen_dir / f"{s.scenario_id}.yaml", s)
            result.written.extend((ex.scenario_id, im.scenario_id))
            reason = ""
            break
        if reason:
            result.rejected.append(reason)
            rejected_lines.append(json.dumps({"pair_id": pair_id, "reason": reason, "reply": text}, ensure_ascii=False))
        if progress:
            progress(i + 1)
    suite = Suite(name=out.name, suite="mpe", description=f"LLM-written Duplex-MPE suite ({cfg.model}, prompt {cfg.prompt}).",
                  preamble=Preamble(text=DUTY_PREAMBLE, voice=PREAMBLE_VOICE),
                  generator={"name": "llm", "prompt": cfg.prompt, "model": cfg.model, "seed": seed, "pairs": pairs})
    write_suite(out, suite)
    rej = out / "rejected.jsonl"
    if rejected_lines:
        write_text_atomic(rej, "\n".join(rejected_lines) + "\n")
    elif rej.exists():
        rej.unlink()
    return result
