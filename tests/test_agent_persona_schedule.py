"""The LLM-persona caller on a virtual clock (docs/callers.md): when it speaks, what it records, why it stops.

As tests/test_agent_schedule.py: a fake writer, a scripted agent (speech in ms), the VAD margin 0.
The persona's mind is the stand-in's script (`persona_standin.StandinScript`) behind a fake endpoint
that takes `llm_ms` of the virtual clock; its voice gives 1000 ms of audio after `tts_ms`; its ear
hears scripted words after 300 ms. The lead-in ends at 500 ms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from support.virtual_room import FakeRoom, ScriptedModel, run_virtual, sleep_until_ns  # type: ignore[import-not-found]
from test_agent_schedule import EXACT, SR, FakeEar, now_ns, scenario  # type: ignore[import-not-found]

from floorbench.records import EventKind
from floorbench.suites.agent.persona_llm import PersonaEndpointError
from floorbench.suites.agent.persona_standin import StandinRule, StandinScript
from floorbench.suites.agent.schedule import AgentSchedule
from floorbench.suites.agent.schema import AgentScenario

SCRIPT = StandinScript(rules=[StandinRule(["five"], "Great, thank you. Goodbye.", done=True)],
                       lines=["How many pieces of fruit is that?", "Please count again."])
ENDPOINT = 'endpoint: {base_url: "http://127.0.0.1:9/v1"}'


class FakeBrain:
    def __init__(self, script: StandinScript = SCRIPT, llm_ms: int = 200, fail_at: int | None = None) -> None:
        self.script, self.llm_ms, self.fail_at = script, llm_ms, fail_at
        self.asked: list[list[dict[str, str]]] = []

    def card(self) -> dict[str, Any]:
        return {"base_url": "fake"}

    async def reply(self, messages: list[dict[str, str]]) -> str:
        self.asked.append(messages)
        await sleep_until_ns(now_ns() + self.llm_ms * 1_000_000)
        if self.fail_at is not None and len(self.asked) >= self.fail_at:
            raise PersonaEndpointError("http://127.0.0.1:9/v1 answered HTTP 500: boom")
        return self.script.reply(messages)


class FakeVoice:
    voice = "fake"

    def __init__(self, tts_ms: int = 100) -> None:
        self.tts_ms = tts_ms
        self.spoken: list[str] = []

    async def load(self) -> None:
        return None

    async def speak(self, text: str, sample_rate: int) -> np.ndarray:
        self.spoken.append(text)
        await sleep_until_ns(now_ns() + self.tts_ms * 1_000_000)
        return np.zeros(sample_rate, dtype=np.int16)


def persona_scenario(tmp_path: Path, extra: str = "", opening: bool = True, max_turns: int = 3) -> AgentScenario:
    steps = (f"- persona:\n    goal: learn the total\n    max_turns: {max_turns}\n    {ENDPOINT}\n"
             + ("    opening: I bought three apples and two pears.\n" if opening else "") + extra)
    return scenario(tmp_path, steps)


def play(s: AgentScenario, speech: list[tuple[int, int | None]], heard: list[str],
         brain: FakeBrain | None = None, voice: FakeVoice | None = None) -> tuple[FakeRoom, FakeBrain, FakeVoice]:
    brain, voice = brain or FakeBrain(), voice or FakeVoice()
    audio = {c.id: np.zeros(SR // 100, dtype=np.int16) for c in s.turns}
    room = FakeRoom(ScriptedModel(speech), SR)
    personas = {st.n: (brain, voice) for st in s.steps if st.persona is not None}
    run_virtual(AgentSchedule(s, audio, SR, EXACT, ear=FakeEar(heard), personas=personas).run(room))  # type: ignore[arg-type]
    return room, brain, voice


def lines(room: FakeRoom) -> list[dict[str, Any]]:
    return [f for k, f in room.events if k is EventKind.persona and f["reason"] == "line"]


def end(room: FakeRoom) -> dict[str, Any]:
    return next(f for k, f in room.events if k is EventKind.persona and f["reason"] == "end")


def test_each_line_follows_the_agents_turn_its_asr_llm_and_tts_and_is_recorded(tmp_path: Path) -> None:
    s = persona_scenario(tmp_path)
    room, brain, voice = play(s, [(1800, 3000), (5500, 6500)], ["I see, tell me more", "That makes five."])
    got = lines(room)
    assert [x["text"] for x in got] == ["I bought three apples and two pears.", "How many pieces of fruit is that?",
                                        "Great, thank you. Goodbye."]
    assert [x["clip"] for x in got] == [1, 2, 3] and [x["done"] for x in got] == [False, False, True]
    # the opening is said without asking the endpoint, at the lead-in (plus its TTS)
    assert (got[0]["llm_ms"], got[0]["asr_ms"], got[0]["transcript"], got[0]["tts_ms"]) == (None, None, None, 100)
    # line 2: the agent spoke 1800–3000, its turn is over at 3500 (gap 500); ASR 300, LLM 200, TTS 100
    two = got[1]
    assert (two["heard_from_ms"], two["heard_to_ms"], two["turn_over_ms"]) == (1800, 3000, 3500)
    assert (two["asr_ms"], two["llm_ms"], two["tts_ms"], two["chain_ms"], two["caller_delay_ms"]) == (300, 200, 100, 600, 600)
    assert two["transcript"] == "I see, tell me more" and two["line_ms"] == 4100
    starts = room.starts()
    assert starts[2] == 4100 and starts[3] == 6500 + 500 + 600
    assert end(room)["outcome"] == "done" and end(room)["lines"] == 3
    # the endpoint saw the call so far: the agent as user, the persona's own lines as assistant
    roles = [m["role"] for m in brain.asked[-1]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]  # the call opens with a note
    assert brain.asked[-1][-1]["content"] == "That makes five." and "learn the total" in brain.asked[-1][0]["content"]
    assert voice.spoken[-1] == "Great, thank you. Goodbye."


def test_without_an_opening_the_endpoint_writes_the_first_line(tmp_path: Path) -> None:
    room, brain, _ = play(persona_scenario(tmp_path, opening=False, max_turns=1), [], [])
    assert lines(room)[0]["text"] == "How many pieces of fruit is that?" and lines(room)[0]["llm_ms"] == 200
    assert brain.asked[0][1] == {"role": "user", "content": "(the call has started; the agent has not spoken yet)"}
    assert end(room)["outcome"] == "max_turns"


def test_it_stops_at_max_turns_and_when_the_agent_stays_silent(tmp_path: Path) -> None:
    room, _, _ = play(persona_scenario(tmp_path, max_turns=2), [(1800, 3000), (5500, 6500)], ["hm", "hm"])
    assert len(lines(room)) == 2 and end(room)["outcome"] == "max_turns" and "2 lines" in end(room)["why"]
    (tmp_path / "b").mkdir()
    room, _, _ = play(persona_scenario(tmp_path / "b"), [(1800, 3000)], ["hm"])
    e = end(room)
    assert e["outcome"] == "agent_silent" and len(lines(room)) == 2 and "line 2" in e["why"]


def test_an_endpoint_failure_is_recorded_and_the_lines_already_said_are_kept(tmp_path: Path) -> None:
    room, _, _ = play(persona_scenario(tmp_path), [(1800, 3000)], ["hm"], brain=FakeBrain(fail_at=1))
    assert len(lines(room)) == 1  # the opening, kept
    e = end(room)
    assert e["outcome"] == "endpoint_failed" and "HTTP 500" in e["why"] and e["lines"] == 1
    assert any(k is EventKind.end for k, _ in room.events)  # the call still ends properly


def test_a_seeded_barge_in_speaks_over_the_agent_after_ms_of_its_speech(tmp_path: Path) -> None:
    s = persona_scenario(tmp_path, "    barge_in: {chance: 1.0, after_ms: 700}\n", max_turns=2)
    room, _, _ = play(s, [(1800, 6000)], ["a long answer"])
    two = lines(room)[1]
    assert two["barge_in"] is True and two["turn_over_ms"] == 1800 + 700
    assert room.starts()[2] == 1800 + 700 + 600 < 6000  # over the agent, after the caller's own chain
    assert any(w["reason"] == "persona_barge_in" for w in room.waits())


def test_a_seeded_backchannel_is_said_while_the_agent_talks(tmp_path: Path) -> None:
    s = persona_scenario(tmp_path, "    backchannel: {chance: 1.0, after_ms: 800, text: mm-hm}\n", max_turns=2)
    assert [c.label for c in s.turns] == ["caller_persona"] * 2 + ["caller_persona_backchannel"] * 2
    room, _, voice = play(s, [(1800, 4000)], ["a long answer"])
    back = [f for k, f in room.events if k is EventKind.persona and f["reason"] == "backchannel"]
    assert len(back) == 1 and back[0]["clip"] == 4 and voice.spoken.count("mm-hm") == 1  # the one before line 2
    # after_ms into the agent's speech, on time: its words were synthesized (once) while the call started
    assert room.starts()[4] == 1800 + 800 and back[0]["tts_ms"] == 0
    assert room.starts()[2] == 4000 + 500 + 600  # the line still waits for the turn's end


def test_the_draws_are_seeded_per_trial(tmp_path: Path) -> None:
    s = persona_scenario(tmp_path, "    barge_in: {chance: 0.5, after_ms: 700}\n    seed: 3\n", max_turns=4)
    speech = [(1800, 6000), (8000, 12000), (14000, 18000)]
    a = [x["barge_in"] for x in lines(play(s, speech, ["x"] * 3)[0])]
    b = [x["barge_in"] for x in lines(play(s, speech, ["x"] * 3)[0])]
    assert a == b
