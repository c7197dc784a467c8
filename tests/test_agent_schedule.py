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


def test_a_say_after_an_opening_silence_waits_for_no_reply_but_for_a_greeting_to_end(tmp_path: Path) -> None:
    """The silence plays 500–2500. A greeting still going when the say is due is a turn the say waits to end
    (its gap after it); one that ended inside the silence, or none, lets the say go at once; `wait_ms` counts
    from the call's start (there is no caller turn before it)."""
    steps = "- silence: 2000\n- say: hello"
    for i, (speech, want) in enumerate([([(1000, 4000)], 4000 + 500), ([(600, 2000)], 2500), ([], 2500)]):
        (tmp_path / str(i)).mkdir()
        assert starts_by_step(play(scenario(tmp_path / str(i), steps), speech))[2] == want, speech
    (tmp_path / "w").mkdir()
    waits = play(scenario(tmp_path / "w", steps + "\n  wait_ms: 3000"))
    assert starts_by_step(waits)[2] == 3000


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


# -- branch steps --------------------------------------------------------------------------------

BRANCH = """- say: one
- branch:
    rules:
      - {name: order, contains: order number, say: four two seven, goto: thanks}
      - {name: sorry, matches: "\\\\b(sorry|repeat)\\\\b", say: I said a refund}
    otherwise: {say: can you help}
- say: skipped unless otherwise
- say: thanks
  label: thanks
"""


class FakeEar:
    """Hears the scripted words, one text per call, taking `asr_ms` of the virtual clock."""

    model = "fake"

    def __init__(self, texts: list[str], asr_ms: int = 300) -> None:
        self.texts = texts
        self.asr_ms = asr_ms
        self.heard: list[int] = []

    async def load(self) -> None:
        return None

    async def transcribe(self, audio: np.ndarray) -> str:
        from support.virtual_room import sleep_until_ns  # type: ignore[import-not-found]

        self.heard.append(len(audio))
        await sleep_until_ns(now_ns() + self.asr_ms * 1_000_000)
        return self.texts.pop(0)


def now_ns() -> int:
    import asyncio

    return round(asyncio.get_running_loop().time() * 1e9)


def play_branch(s: AgentScenario, speech: list[tuple[int, int | None]], ear: FakeEar) -> FakeRoom:
    audio = {c.id: np.zeros(SR, dtype=np.int16) for c in s.turns}
    room = FakeRoom(ScriptedModel(speech), SR)
    run_virtual(AgentSchedule(s, audio, SR, EXACT, ear=ear).run(room))
    return room


def branch_line(room: FakeRoom) -> dict:  # type: ignore[type-arg]
    return next(f for k, f in room.events if k is EventKind.branch)


def test_a_branch_plays_the_first_matching_rules_line_after_the_gap_and_its_asr(tmp_path: Path) -> None:
    s = scenario(tmp_path, BRANCH)
    ear = FakeEar(["Sure, what is your order number? Sorry, I mean"])  # both rules match: the first wins
    room = play_branch(s, [(1800, 3000)], ear)
    b = branch_line(room)
    assert (b["rule"], b["index"], b["clip"], b["goto"]) == ("order", 0, 2, "thanks")
    assert b["why"] == 'contains "order number"' and b["transcript"].startswith("Sure")
    assert (b["heard_from_ms"], b["heard_to_ms"], b["turn_over_ms"]) == (1800, 3000, 3500)
    assert (b["asr_ms"], b["chain_ms"], b["caller_delay_ms"]) == (300, 300, 300)  # the caller's own, recorded
    assert ear.heard == [(3000 - 1800) * SR // 1000]  # the agent's turn, not the whole call
    starts = {int(f["step"]): (int(f["turn_id"]), int(f["t_ms"])) for k, f in room.events if k is EventKind.turn_start}
    assert starts[2] == (2, 3500 + 300)  # the gap, then the ASR; the chosen line's clip
    assert 3 not in starts and starts[4][0] == 6  # goto thanks: step 3 skipped
    skipped = [w for w in room.waits() if w["reason"] == "skipped"]
    assert [(w["step"], w["by_step"], w["goto"]) for w in skipped] == [(3, 2, "thanks")]


def test_a_branch_takes_otherwise_when_no_rule_matches_or_the_agent_says_nothing(tmp_path: Path) -> None:
    s = scenario(tmp_path, BRANCH)
    other = branch_line(play_branch(s, [(1800, 3000)], FakeEar(["I can help with that"])))
    assert (other["rule"], other["clip"], other["why"], other["goto"]) == ("otherwise", 4, "no rule matched", None)
    ear = FakeEar([])
    silent = play_branch(s, [], ear)
    b = branch_line(silent)
    assert (b["rule"], b["why"], b["transcript"], b["asr_ms"]) == ("otherwise", "the agent said nothing", None, None)
    assert ear.heard == []  # no ASR of silence
    assert {int(f["step"]) for k, f in silent.events if k is EventKind.turn_start} == {1, 2, 3, 4}


def test_a_branch_whose_ear_fails_records_it(tmp_path: Path) -> None:
    class Deaf(FakeEar):
        async def transcribe(self, audio: np.ndarray) -> str:
            raise RuntimeError("no model")

    b = branch_line(play_branch(scenario(tmp_path, BRANCH), [(1800, 3000)], Deaf([])))
    assert b["reason"] == "asr_failed" and "no model" in b["why"] and b["rule"] == "otherwise"


def test_describe_records_the_branch_rules_and_the_callers_asr(tmp_path: Path) -> None:
    s = scenario(tmp_path, BRANCH)
    d = AgentSchedule(s, {}, SR, ear=FakeEar([])).describe()
    rules = d["steps"][1]["branch"]["rules"]
    assert [r["name"] for r in rules] == ["order", "sorry"] and [r["clip"] for r in rules] == [2, 3]
    assert d["caller_asr"] == "fake"


class PhoneRoom(FakeRoom):
    """A playback with a data channel to a phone leg: what the schedule asked it to send, and when."""

    def __init__(self, model: ScriptedModel, sample_rate: int = SR) -> None:
        super().__init__(model, sample_rate)
        self.sent: list[tuple[int, dict[str, object]]] = []

    async def send_data(self, message: dict[str, object]) -> None:
        self.sent.append((self.clock.now_ns() // 1_000_000, message))


def test_a_dtmf_step_presses_its_keys_once_the_agents_turn_has_ended(tmp_path: Path) -> None:
    """say 500–1500; the agent answers 1800–3000; the keys go at 3000 + gap 500 = 3500, five of 100 ms 40 ms apart;
    the agent reads them back 4200–5000 and the next say waits for that turn to end."""
    s = scenario(tmp_path, '- say: hello\n- dtmf: "1234#"\n  duration_ms: 100\n- say: bye')
    audio = {c.id: np.zeros(SR, dtype=np.int16) for c in s.turns}
    room = PhoneRoom(ScriptedModel([(1800, 3000), (4200, 5000)]), SR)
    run_virtual(AgentSchedule(s, audio, SR, EXACT).run(room))
    assert room.sent == [(3500, {"floorbench": "dtmf", "digits": "1234#", "step": 2, "duration_ms": 100})]
    mark = next(f for k, f in room.events if k is EventKind.marker)
    assert (mark["step"], mark["reason"], mark["t_ms"], mark["end_ms"], mark["digits"]) == (2, "dtmf", 3500, 4160, "1234#")
    assert starts_by_step(room) == {1: 500, 3: 5000 + 500}


def test_a_dtmf_step_without_a_data_channel_says_so_on_the_timeline(tmp_path: Path) -> None:
    room = play(scenario(tmp_path, '- say: hello\n- dtmf: "9"'), [(1800, 3000)])
    mark = next(f for k, f in room.events if k is EventKind.marker)
    assert (mark["step"], mark["reason"]) == (2, "not_sent") and "end_ms" not in mark
