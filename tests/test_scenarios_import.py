"""Importing externally written scenarios, and the LLM-backed generator against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
import yaml
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scenarios.validate import ScenarioError, load_suite
from floorbench.suites.mpe.llm import LLMConfig, build_prompt, extract_json, generate_with_llm, load_config
from floorbench.suites.mpe.schema import Label


def _user_pair(pid: str, bad: bool = False) -> list[dict]:
    """A pair the way a user (or their LLM) might write it: bare speaker names, no ids, no `differs`."""
    attrs = {"location": "kitchen", "activity": "cooking dinner", "relationship": "roommates",
             "device_context": "smart speaker on the counter", "register": "casual"}
    turns = [
        {"speaker": "A", "label": "N2", "text": "Tom, the salmon was 18 dollars."},
        {"speaker": "B", "label": "N3", "text": "Where's the garlic press..."},
        {"speaker": "C", "label": "N2", "text": "Maya, the wine was 14."},
        {"speaker": "A", "label": "T", "text": "Aria, what did the salmon and the wine cost together?", "gold": "32 dollars"},
        {"speaker": "B", "label": "N1", "text": "Aria's playlist is good today."},
    ]
    if bad:
        turns[4]["label"] = "T"
        turns[4]["gold"] = "x"
    ex = {"scenario_id": f"{pid}-explicit", "pair_id": pid, "condition": "explicit", "attributes": attrs,
          "speakers": {"A": "Maya", "B": "Tom", "C": "Luis"}, "turns": turns}
    im = json.loads(json.dumps(ex))
    im["scenario_id"] = f"{pid}-implicit"
    im["condition"] = "implicit"
    im["turns"][3]["text"] = "Can you add up the salmon and the wine for us?"
    return [ex, im]


def test_import_folder_of_user_files(tmp_path):
    src = tmp_path / "mine"
    src.mkdir()
    (src / "good.yaml").write_text(yaml.safe_dump(_user_pair("u1"), sort_keys=False))
    (src / "bad.json").write_text(json.dumps({"scenarios": _user_pair("u2", bad=True)}))
    (src / "broken.yaml").write_text("turns: [oops\n")
    out = tmp_path / "suite"
    res = CliRunner().invoke(app, ["suite", "import", str(src), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "imported 2 scenarios" in res.output
    assert "bad.json[0]: scenario u2-explicit: 2 T turns (ids 4, 5)" in res.output
    assert "broken.yaml: YAML syntax error" in res.output
    assert "Traceback" not in res.output
    suite = load_suite(out, audio=False, strict_vocab=True)
    ex = next(s for s in suite.scenarios if s.condition == "explicit")
    assert [t.id for t in ex.turns] == [1, 2, 3, 4, 5]
    assert ex.speakers["A"].voice == "festival:slt_hts" and ex.speakers["A"].name == "Maya"
    assert ex.differs == [4]


def test_import_jsonl_and_reject_unpaired(tmp_path):
    src = tmp_path / "s.jsonl"
    ex, im = _user_pair("u3")
    lonely = _user_pair("u4")[0]
    src.write_text("\n".join(json.dumps(r) for r in (ex, im, lonely)) + "\n")
    out = tmp_path / "suite"
    res = CliRunner().invoke(app, ["suite", "import", str(src), "--out", str(out), "--name", "mine"])
    assert res.exit_code == 2
    assert "pair u4: 1 scenario(s); each pair needs an explicit and an implicit one" in res.output
    assert load_suite(out, audio=False).suite.name == "mine"


# --------------------------------------------------------------------------- LLM generator


class _FakeLLM(BaseHTTPRequestHandler):
    """An OpenAI-compatible /chat/completions that replies from a script, one reply per call."""

    replies: ClassVar[list[str]] = []
    prompts: ClassVar[list[str]] = []
    auth: ClassVar[list[str]] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).prompts.append(body["messages"][0]["content"])
        type(self).auth.append(self.headers.get("Authorization", ""))
        content = type(self).replies.pop(0) if type(self).replies else "sorry"
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def llm_server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _FakeLLM)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    _FakeLLM.replies, _FakeLLM.prompts, _FakeLLM.auth = [], [], []
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


def _reply_for(prompt: str, names: dict[str, str], break_it: bool = False) -> str:
    """Write a valid reply for whatever label sequence the prompt asks for."""
    labels = prompt.split("with these labels, in this order:\n", 1)[1].split("\n", 1)[0].split(", ")
    ids = list(names)
    turns = []
    facts = iter(["the bread was 4 dollars", "the cheese was 9 dollars", "the wine was 12 dollars"])
    for i, lab in enumerate(labels):
        sp = ids[i % len(ids)]
        other = names[ids[(i + 1) % len(ids)]]
        t = {"speaker": sp, "label": lab}
        if lab == "T":
            t.update(text="Aria, what did the bread and the cheese cost together?", gold="13 dollars",
                     implicit_text="So what did the bread and the cheese cost together?")
        elif lab == "N4Q":
            t.update(text="Aria, what's the capital of Australia?",
                     attempt="The capital of Australia is Canberra, which surprises a lot of people who guess Sydney.")
        elif lab == "N4R":
            t.update(text=f"{other}, it's Canberra.")
        elif lab == "N1":
            t.update(text="Aria has been great today.")
        elif lab == "N3":
            t.update(text=f"Hmm, {next(facts, 'okay')}.")
        else:
            t.update(text=f"{other}, {next(facts, 'pass the salt')}.")
        turns.append(t)
    if break_it:
        turns[0]["label"] = "T"
    return "Here you go:\n```json\n" + json.dumps({"turns": turns, "implicit_previous_text": None}) + "\n```"


def test_llm_generator_validates_and_reports_rejections(llm_server, tmp_path, monkeypatch):
    monkeypatch.setenv("FB_TEST_LLM_KEY", "sk-test")
    cfg = LLMConfig(base_url=llm_server, model="local-test", api_key_env="FB_TEST_LLM_KEY", attempts=1)
    # script the replies: pair 0 valid, pair 1 breaks the label sequence, pair 2 is not JSON
    import random

    from floorbench.suites.mpe.generate import GenConfig, GeneratedPair

    replies = []
    for i in range(3):
        draft = GeneratedPair(random.Random(f"floorbench-llm:7:{i}"), "x", GenConfig(), set())
        labels, _ = draft.layout(3)
        prompt = build_prompt("with these labels, in this order:\n{{labels}}\n", "Aria", {}, draft.speakers, labels)
        replies.append(_reply_for(prompt, draft.names, break_it=(i == 1)))
    replies[2] = "I cannot help with that."
    _FakeLLM.replies = replies
    res = generate_with_llm(cfg, tmp_path / "llm", pairs=3, seed=7)
    assert res.written == ["llm-s7-00000-explicit", "llm-s7-00000-implicit"]
    assert len(res.rejected) == 2
    assert "the model broke the sequence" in res.rejected[0]
    assert "reply is not valid JSON" in res.rejected[1]
    assert all(a == "Bearer sk-test" for a in _FakeLLM.auth)
    assert "Aria" in _FakeLLM.prompts[0] and "N4Q" in _FakeLLM.prompts[0]
    rejected = [json.loads(line) for line in (tmp_path / "llm" / "rejected.jsonl").read_text().splitlines()]
    assert [r["pair_id"] for r in rejected] == ["llm-s7-00001", "llm-s7-00002"]
    suite = load_suite(tmp_path / "llm", audio=False, strict_vocab=True)
    ex = next(s for s in suite.scenarios if s.condition == "explicit")
    assert ex.meta == {"generator": "llm", "prompt": "mpe_pair_v1", "model": "local-test"}
    assert ex.request.gold == "13 dollars" and ex.differs == [ex.request.id]
    assert Label.T in [t.label for t in ex.turns]


def test_llm_config_errors_are_one_line(tmp_path, monkeypatch):
    p = tmp_path / "llm.yaml"
    p.write_text("base_url: http://127.0.0.1:9/v1\n")
    with pytest.raises(ScenarioError, match="model: Field required"):
        load_config(p)
    p.write_text("base_url: http://x/v1\nmodel: m\nprompt: mpe_pair_v9\n")
    with pytest.raises(ScenarioError, match="prompt 'mpe_pair_v9' not found; use one of mpe_pair_v1"):
        load_config(p)
    monkeypatch.delenv("FB_NOPE", raising=False)
    p.write_text("base_url: http://x/v1\nmodel: m\napi_key_env: FB_NOPE\n")
    with pytest.raises(ScenarioError, match="FB_NOPE is not set"):
        load_config(p)
    assert extract_json('prefix {"turns": []} suffix') == {"turns": []}


def test_llm_unreachable_endpoint_is_reported(tmp_path):
    cfg = LLMConfig(base_url="http://127.0.0.1:9/v1", model="m", attempts=1, timeout_s=2)
    res = generate_with_llm(cfg, tmp_path / "o", pairs=1, seed=0)
    assert not res.written and "cannot reach the endpoint" in res.rejected[0]
