"""Suite agent's live schedule on a virtual clock: every step rule of docs/testing.md, exact in ms.

As tests/test_turns_schedule.py: a fake writer plays clips at exact samples, a scripted agent
speaks at fixed times (heard in 20 ms frames), the VAD margin is 0. Every spoken clip is
1000 ms long; the first starts at 500 ms (the lead-in).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from support.virtual_room import FakeRoom, ScriptedModel, run_virtual  # type: ignore[import-not-found]

from floorbench.records import EventKind
from floorbench.suites.agent.importer import write_test_suite
from floorbench.suites.agent.rules import AgentRules
from floorbench.suites.agent.schedule import AgentSchedule
from floorbench.suites.agent.schema import AgentScenario
from floorbench.suites.agent.validate import load_test_file

SR = 16000
EXACT = AgentRules(vad_margin_ms=0)


def scenario(tmp_path: Path, steps: str) -> AgentScenario:
    f = tmp_path / "t.yaml"
    f.write_text("tests:\n  - name: t\n    steps:\n" + "".join(f"      {line}\n" for line in steps.strip().splitlines()))
    return write_test_suite(load_test_file(f), tmp_path / "suite", 1)[0]


def play(s: AgentScenario, speech: list[tuple[int, int | None]] | None = None) -> FakeRoom:
    audio = {c.id: np.zeros(SR if c.label != "caller_silence" else (s.steps[c.step - 1].ms or 0) * SR // 1000,
                            dtype=np.int16) for c in s.turns}
    room = FakeRoom(ScriptedModel(speech or []), SR)
    t0 = time.perf_counter()
    run_virtual(AgentSchedule(s, audio, SR, EXACT).run(room))
    assert time.perf_counter() - t0 < 0.5, "a virtual-clock schedule must run in well under a second"
    return room


def starts_by_step(room: FakeRoom) -> dict[int, int]:
    return {int(f["step"]): int(f["t_ms"]) for k, f in room.events if k is EventKind.turn_start}


def reasons(room: FakeRoom) -> list[str]:
    return [str(w["reason"]) for w in room.waits()]


def test_a_say_waits_for_the_agents_turn_to_end_then_its_gap(tmp_path: Path) -> None:
    s = scenario(tmp_path, "- say: one\n- say: two\n  gap_ms: 700")
    room = play(s, [(1800, 4000)])  # clip 1 ends at 1500; the agent answers 1800–4000
    assert starts_by_step(room) == {1: 500, 2: 4000 + 700}
    # the first say: no agent speech yet, so no wait; the second: its onset, then its silence
    # the tail: no reply to the second say within the reply window
    assert reasons(room) == ["no_onset", "no_reply", "onset", "turn_over", "no_onset", "no_reply"]


def test_a_say_goes_on_after_wait_ms_when_the_agent_never_answers(tmp_path: Path) -> None:
    room = play(scenario(tmp_path, "- say: one\n- say: two\n- say: three\n  wait_ms: 2000"))
    assert starts_by_step(room) == {1: 500, 2: 1500 + 5000, 3: 7500 + 2000}
    assert room.end_ms() == 10500 + 5000  # the tail waits the reply window, then ends


def test_the_first_say_waits_for_an_agent_that_greets_first(tmp_path: Path) -> None:
    room = play(scenario(tmp_path, "- say: hello\n  wait_ms: 3000"), [(1000, 2600)])
    assert starts_by_step(room) == {1: 2600 + 500}


def test_a_pause_continues_the_turn_whatever_the_agent_does(tmp_path: Path) -> None:
    s = scenario(tmp_path, "- say: I would like\n- say: a table\n  pause_ms: 900")
    quiet, talking = play(s), play(s, [(1700, 3000)])  # the agent talks into the pause
    assert starts_by_step(quiet) == starts_by_step(talking) == {1: 500, 2: 1500 + 900}


def test_barge_in_and_backchannel_start_after_ms_after_the_agents_onset(tmp_path: Path) -> None:
    s = scenario(tmp_path, "- say: tell me\n- backchannel: mm-hm\n  after_ms: 800\n- barge_in: wait\n  after_ms: 2500")
    room = play(s, [(1900, 6000)])
    assert starts_by_step(room) == {1: 500, 2: 1900 + 800, 3: 1900 + 2500}
    start = next(f for k, f in room.events if k is EventKind.turn_start and f["step"] == 3)
    assert (start["reason"], start["onset_ms"], start["label"]) == ("timed", 1900, "barge_in")


def test_a_timed_step_is_not_run_when_the_agent_never_speaks(tmp_path: Path) -> None:
    room = play(scenario(tmp_path, "- say: tell me\n- barge_in: wait\n- say: hello?"))
    not_run = [w for w in room.waits() if w["reason"] == "not_run"]
    assert [(w["step"], w["turn_id"]) for w in not_run] == [(2, 2)]
    assert starts_by_step(room) == {1: 500, 3: 1500 + 5000}  # the say after it waited the reply window


def test_silence_follows_the_previous_clip_and_hang_up_ends_the_call(tmp_path: Path) -> None:
    s = scenario(tmp_path, "- say: one\n- silence: 3000\n- say: two\n- hang_up")
    room = play(s, [(1800, 2400), (5000, 5600)])
    st = starts_by_step(room)
    assert st[2] == 1500 and st[3] == 4500  # the caller stays silent 3000 ms (the agent's reply inside it)
    assert "hang_up" in reasons(room) and room.end_ms() == 5600 + 500  # no tail after hang_up


def test_describe_records_the_steps_and_expectations_for_the_scorer(tmp_path: Path) -> None:
    s = scenario(tmp_path, "- say: one\n  expect: {responds_within_ms: 900, contains: [a]}")
    d = AgentSchedule(s, {}, SR).describe()
    assert d["policy"] == "agent" and d["test"] == "t" and d["trial"] == 1
    assert d["steps"][0]["expect"] == {"responds_within_ms": 900, "contains": ["a"]}  # only what is set
    assert d["expect"] == {}
