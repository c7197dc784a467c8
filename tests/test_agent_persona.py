"""The LLM-persona caller offline (docs/callers.md): its format and one-line errors, its placeholder
clips, the done marker, the stand-in endpoint over HTTP, the endpoint client's failures (redacted),
and the trial judged from its records (done, max_turns, agent silent, endpoint failed).

The timing on a virtual clock is tests/test_agent_persona_schedule.py; the live half is
tests/test_agent_persona_live.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from floorbench.records import DialogueTurn
from floorbench.scenarios.validate import load_suite
from floorbench.suites.agent.importer import write_test_suite
from floorbench.suites.agent.oracle import oracle_path
from floorbench.suites.agent.persona_llm import ChatEndpoint, PersonaEndpointError, messages, parse_reply
from floorbench.suites.agent.persona_standin import StandinError, load_script, start
from floorbench.suites.agent.schedule import AgentSchedule
from floorbench.suites.agent.schema import AgentScenario, PersonaEndpoint
from floorbench.suites.agent.score import score_trials
from floorbench.suites.agent.validate import AgentTestError, load_test_file
from tests.support.agent_trials import write_trial

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "persona" / "persona.yaml"
SCRIPT = ROOT / "examples" / "persona" / "fruit.yaml"
PERSONA = """      - say: Hello.
      - persona:
          goal: learn the total
          max_turns: 3
          endpoint: {base_url: "http://127.0.0.1:9/v1", model: m}
        expect: {goal_reached: true, responds_within_ms: 2000}
"""


def write(tmp_path: Path, steps: str, head: str = "") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    f = tmp_path / "calls.yaml"
    f.write_text(head + "tests:\n  - name: t\n    steps:\n" + steps)
    return f


def load(tmp_path: Path, steps: str = PERSONA) -> AgentScenario:
    return write_test_suite(load_test_file(write(tmp_path, steps)), tmp_path / "suite", 1)[0]


def test_the_example_loads_and_reserves_a_live_clip_per_line(tmp_path: Path) -> None:
    (t,) = load_test_file(EXAMPLE)
    p = t.steps[0].persona
    assert p is not None and p.max_turns == 4 and p.opening and p.voice == "piper:joe"
    assert p.endpoint.base_url == "http://127.0.0.1:8088/v1"  # the file default
    assert set(p.endpoint.model_dump()) == {"base_url", "model", "timeout_s", "temperature", "max_tokens"}  # no key
    (s,) = write_test_suite([t], tmp_path / "suite", 1)
    assert s.steps[0].persona is not None and s.steps[0].persona.clips == [1, 2, 3, 4]
    assert all(c.live and c.recorded and c.audio and c.label == "caller_persona" for c in s.turns)
    assert len(load_suite(tmp_path / "suite", audio=True).scenarios) == 1  # the placeholders load as audio
    assert load_script(SCRIPT).lines


def test_the_oracle_does_not_listen_for_persona_lines(tmp_path: Path) -> None:
    assert [clip for _, clip, _ in oracle_path(load(tmp_path))] == [1]  # the say only: persona audio is made live


def test_describe_records_the_operators_endpoint_without_its_secrets(tmp_path: Path) -> None:
    from floorbench.suites.agent.schedule import _personas

    s = load(tmp_path)
    bound = {"persona_url": "https://user:pw@llm.example/v1?key=sekrit", "persona_key_env": "PERSONA_TEST_KEY"}
    d = json.dumps(AgentSchedule(s, {}, 16000, personas=_personas(s, bound)).describe())
    assert "sekrit" not in d and "pw@" not in d and "https://llm.example/v1" in d and "PERSONA_TEST_KEY" in d


@pytest.mark.parametrize("steps, head, wanted", [
    ("      - persona: {goal: x}\n", "", "step 1 (persona): no endpoint; add endpoint:"),
    ("      - persona: {endpoint: {base_url: 'http://h/v1'}}\n", "", "goal must be a sentence"),
    ("      - persona: {goal: x, endpoint: {base_url: 'ftp://h'}}\n", "", "base_url 'ftp://h'; give the endpoint's http(s) URL"),
    ("      - persona: {goal: x, endpoint: {base_url: 'http://h/v1', api_key: sk-123}}\n", "",
     "'api_key': a test file may not name a key or the variable that holds one"),
    ("      - persona: {goal: x, endpoint: {base_url: 'http://h/v1', api_key_env: sk-live-1234}}\n", "",
     "'api_key_env': a test file may not name a key or the variable that holds one"),
    ("      - persona: {goal: x, endpoint: {base_url: 'http://h/v1', api_key_env: LIVEKIT_API_SECRET}}\n", "",
     "--persona-url URL --persona-key-env NAME"),
    ("      - persona: {goal: x, endpoint: {base_url: 'http://u:sk-123@h/v1'}}\n", "",
     "carries credentials (user-info, a query or a fragment)"),
    ("      - persona: {goal: x, max_turns: 0}\n", "persona_endpoint: {base_url: 'http://h/v1'}\n", "max_turns=0; use a whole number from 1 to 20"),
    ("      - persona: {goal: x, golas: y}\n", "persona_endpoint: {base_url: 'http://h/v1'}\n",
     "unknown key 'golas' in a persona"),
    ("      - persona: {goal: x, backchannel: {chance: 0.5}}\n", "persona_endpoint: {base_url: 'http://h/v1'}\n",
     "backchannel: text must be a sentence"),
    ("      - persona: {goal: x, barge_in: {chance: 2}}\n", "persona_endpoint: {base_url: 'http://h/v1'}\n",
     "barge_in: chance=2; use a number from 0 to 1"),
    ("      - persona: {goal: x}\n        expect: {goal_reached: false}\n", "persona_endpoint: {base_url: 'http://h/v1'}\n",
     "write goal_reached: true"),
    ("      - say: hi\n        expect: {goal_reached: true}\n", "", "goal_reached does not apply to a say step"),
    ("      - persona: {goal: x}\n        after_ms: 3\n", "persona_endpoint: {base_url: 'http://h/v1'}\n",
     "unknown key 'after_ms' on a persona step; use voice, gap_ms, wait_ms, label, expect"),
])
def test_a_bad_persona_is_one_line_naming_the_step_and_the_fix(tmp_path: Path, steps: str, head: str, wanted: str) -> None:
    with pytest.raises(AgentTestError) as e:
        load_test_file(write(tmp_path, steps, head))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{tmp_path / 'calls.yaml'}: test t: step 1"), msg
    assert wanted in msg and "sk-123" not in msg, msg


def test_a_bad_file_default_endpoint_names_it(tmp_path: Path) -> None:
    with pytest.raises(AgentTestError, match=r"calls.yaml: persona_endpoint: base_url 'nope'"):
        load_test_file(write(tmp_path, "      - say: hi\n", "persona_endpoint: {base_url: nope}\n"))


def test_the_done_marker_and_json_replies() -> None:
    assert parse_reply("Thanks, bye. [DONE]") == ("Thanks, bye.", True)
    assert parse_reply('"How much is it?"') == ("How much is it?", False)
    assert parse_reply("[ done ]") == ("", True)
    assert parse_reply('{"say": "Bye now.", "done": true}') == ("Bye now.", True)
    from floorbench.suites.agent.schema import Persona

    m = messages(Persona(goal="g", end_when="e", endpoint=PersonaEndpoint(base_url="http://h")),
                 [("agent", "Hello, how can I help?"), ("caller", "Hi."), ("agent", "")])
    assert [x["role"] for x in m] == ["system", "user", "assistant", "user"]
    assert "[DONE]" in m[0]["content"] and m[-1]["content"] == "(the agent said nothing)"


def test_a_bad_standin_script_is_one_line(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("rules: [{say: hi}]\n")
    with pytest.raises(StandinError, match=r"s.yaml: rule 1: contains must be a word"):
        load_script(f)


async def test_the_standin_serves_its_script_deterministically() -> None:
    runner, url = await start(load_script(SCRIPT))
    try:
        ep = ChatEndpoint(PersonaEndpoint(base_url=url, model="any"))
        first = await ep.reply([{"role": "user", "content": "Sorry, I did not hear anything about that."}])
        assert first == "Aria, how many pieces of fruit did I buy altogether?"
        said = [{"role": "assistant", "content": first}, {"role": "user", "content": "That's 5 apples in total."}]
        assert parse_reply(await ep.reply(said)) == ("Great, that is what I counted too. Thank you, goodbye.", True)
        again = await ep.reply([{"role": "assistant", "content": first}, {"role": "user", "content": "Hm?"}])
        assert again.startswith("I bought three apples and two pears.")  # not understood: says it all again
        out = await ep.reply([{"role": "assistant", "content": first}, {"role": "assistant", "content": again},
                              {"role": "user", "content": "Hm?"}])
        assert out.startswith("Sorry, I still do not know")  # out of lines
        bad = ChatEndpoint(PersonaEndpoint(base_url=url.replace("/v1", "/nope"), model="any"))
        with pytest.raises(PersonaEndpointError, match="answered HTTP 404"):
            await bad.reply([])
    finally:
        await runner.cleanup()


async def test_an_unreachable_endpoint_or_a_missing_key_is_one_redacted_line(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = ChatEndpoint(PersonaEndpoint(base_url="http://127.0.0.1:9/v1?token=sekrit", timeout_s=2))
    with pytest.raises(PersonaEndpointError) as e:
        await ep.reply([])
    assert "cannot reach http://127.0.0.1:9/v1" in str(e.value) and "sekrit" not in str(e.value)
    monkeypatch.delenv("PERSONA_TEST_KEY", raising=False)
    keyed = ChatEndpoint(PersonaEndpoint(base_url="http://127.0.0.1:9/v1"), key_env="PERSONA_TEST_KEY")
    with pytest.raises(PersonaEndpointError, match="environment variable PERSONA_TEST_KEY is not set"):
        await keyed.reply([])
    assert keyed.card()["api_key_env"] == "PERSONA_TEST_KEY"  # the name, never a key


# -- judged from the records ---------------------------------------------------------------------


def make_trial(run: Path, s: AgentScenario, end: dict[str, Any], said: int) -> None:
    starts = [500, 3000, 6000][:said]
    turns = [DialogueTurn(turn_id=1, speaker="U", label="caller_say", start_ms=0, end_ms=400)]
    turns += [DialogueTurn(turn_id=k + 2, speaker="U", label="caller_persona", start_ms=a, end_ms=a + 1000)
              for k, a in enumerate(starts)]
    lines = [{"t_ms": a, "kind": "persona", "source": "playback", "step": 2, "reason": "line", "line": k + 1,
              "clip": k + 2, "text": f"line {k + 1}", "done": False, "asr_ms": 300, "llm_ms": 200, "tts_ms": 100}
             for k, a in enumerate(starts)]
    lines.append({"t_ms": 9000, "kind": "persona", "source": "playback", "step": 2, "reason": "end", **end})
    write_trial(run, s, np.zeros(12 * 16000, dtype=np.int16), turns, lines)  # the agent never speaks


@pytest.mark.parametrize("end, status, measured", [
    ({"outcome": "done", "why": "the persona said it was done", "lines": 2}, "failed", "done after 2 line(s)"),
    ({"outcome": "max_turns", "why": "said 3 lines (max_turns) without reaching its goal", "lines": 3}, "failed",
     "max_turns after 3 line(s): said 3 lines"),
    ({"outcome": "agent_silent", "why": "the agent said nothing after the persona's line 1", "lines": 1}, "failed",
     "agent_silent after 1 line(s)"),
    ({"outcome": "endpoint_failed", "why": "cannot reach http://127.0.0.1:9/v1", "lines": 1}, "error",
     "error: endpoint_failed after 1 line(s): cannot reach"),
])
def test_goal_reached_is_judged_from_the_records(tmp_path: Path, end: dict[str, Any], status: str, measured: str) -> None:
    s = load(tmp_path)
    make_trial(tmp_path / "run", s, end, int(end["lines"]))
    (trial,) = score_trials(tmp_path / "run")
    res = {a["key"]: a for a in trial["assertions"]}
    goal = res["step 2 goal_reached"]
    assert goal["passed"] is (end["outcome"] == "done") and goal["measured"].startswith(measured), goal
    # the agent here never speaks: every persona line that expects an answer went unanswered
    assert not res["step 2 responds_within_ms"]["passed"] and "line 1 no response" in res["step 2 responds_within_ms"]["measured"]
    assert trial["status"] == status, trial
    if status == "error":
        assert "endpoint_failed" in trial["error"] and trial["assertions"]  # judged and kept, never a pass
    (rec,) = trial["personas"]
    assert rec["end"]["outcome"] == end["outcome"] and len(rec["lines"]) == end["lines"]
    assert [x["text"] for x in trial["conversation"]["steps"] if x["kind"] == "persona"] == [
        f"line {k + 1}" for k in range(int(end["lines"]))]
    # a done persona's closing line expects no answer; the others are the test's turns
    assert len(trial["latencies_ms"]) == 1 + int(end["lines"]) - (end["outcome"] == "done")
