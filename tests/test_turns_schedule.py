"""The turns live schedule on a virtual clock: every rule of docs/suites/turns.md, exact in ms.

As in tests/test_schedule_virtual.py: a fake writer plays clips at exact
samples, a scripted model speaks at fixed times (heard in 20 ms frames), the
VAD margin is 0, so every decision lands exactly on its rule. Every clip is
1000 ms long; the first starts at 500 ms (the lead-in).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from support.virtual_room import FakeRoom, ScriptedModel, run_virtual  # type: ignore[import-not-found]

from floorbench.records import EventKind
from floorbench.scenarios.schema import Speaker
from floorbench.suites.turns.rules import TurnsRules
from floorbench.suites.turns.schedule import TurnsSchedule, TurnsScheduleConfig
from floorbench.suites.turns.schema import TurnsClip, TurnsScenario

SR = 16000
EXACT = TurnsScheduleConfig(vad_margin_ms=0)


def scenario(*clips: dict[str, Any]) -> TurnsScenario:
    return TurnsScenario(
        scenario_id="v", conversation_type="casual", speakers={"U": Speaker(name="U", voice="piper:joe")},
        turns=[TurnsClip.model_validate({"id": i, "speaker": "U", "text": "x"} | c) for i, c in enumerate(clips, 1)],
    )


def play(s: TurnsScenario, speech: list[tuple[int, int | None]] | None = None) -> FakeRoom:
    audio = {c.id: np.zeros(SR, dtype=np.int16) for c in s.turns}
    room = FakeRoom(ScriptedModel(speech or []), SR)
    t0 = time.perf_counter()
    run_virtual(TurnsSchedule(s, audio, SR, EXACT).run(room))
    assert time.perf_counter() - t0 < 0.5, "a virtual-clock schedule must run in well under a second"
    return room


def reasons(room: FakeRoom) -> list[str]:
    return [str(w["reason"]) for w in room.waits()]


def test_a_pause_lasts_exactly_its_pause_ms_whatever_the_model_does() -> None:
    s = scenario({"label": "pause", "pause_ms": 900}, {"label": "eot"})
    quiet = play(s)
    talking = play(s, [(1600, 2200)])  # the model talks into the pause: the user still goes on
    assert quiet.starts() == talking.starts() == {1: 500, 2: 2400}
    assert [f["sample"] for k, f in quiet.events if k is EventKind.turn_start] == [8000, 38400]


def test_backchannel_starts_its_offset_after_the_models_onset() -> None:
    s = scenario({"label": "eot"}, {"label": "backchannel", "offset_ms": 1500}, {"label": "eot"})
    room = play(s, [(1800, 6000)])  # eot ends at 1500; the model speaks 1800–6000
    starts = room.starts()
    assert starts[2] == 1800 + 1500
    # the next turn waits for 1 500 ms of model silence, then the 300 ms gap
    assert starts[3] == 6000 + 1500 + 300
    assert reasons(room)[:2] == ["onset", "endpoint"]
    start2 = next(f for k, f in room.events if k is EventKind.turn_start and f["turn_id"] == 2)
    assert (start2["reason"], start2["onset_ms"], start2["offset_ms"], start2["label"]) == ("timed", 1800, 1500, "backchannel")


def test_a_clip_timed_against_a_silent_model_is_not_run() -> None:
    s = scenario({"label": "eot"}, {"label": "interrupt", "offset_ms": 1500}, {"label": "eot"})
    room = play(s)
    assert 2 not in room.starts()
    not_run = [w for w in room.waits() if w["reason"] == "not_run"]
    assert [(w["turn_id"], w["label"]) for w in not_run] == [(2, "interrupt")]
    # no onset within 5 000 ms of the end of turn at 1500: the next turn follows the window
    assert room.starts()[3] == 1500 + 5000 + 300
    assert reasons(room)[0] == "no_onset"


def test_a_barge_in_is_an_end_of_turn_whose_reply_is_awaited() -> None:
    s = scenario({"label": "eot"}, {"label": "interrupt", "offset_ms": 1500}, {"label": "eot"})
    # reply 1: 2000–3700 (yields 200 ms into the barge-in at 3500); reply 2 to the barge-in: 4800–5400
    room = play(s, [(2000, 3700), (4800, 5400)])
    assert room.starts() == {1: 500, 2: 3500, 3: 5400 + 1500 + 300}
    waits = room.waits()
    assert [w["reason"] for w in waits][:3] == ["onset", "onset", "endpoint"]
    assert (waits[0]["onset_ms"], waits[1]["from_ms"], waits[1]["onset_ms"]) == (2000, 4500, 4800)


def test_a_model_already_speaking_at_the_end_of_turn_times_from_that_end() -> None:
    s = scenario({"label": "eot"}, {"label": "backchannel", "offset_ms": 1000})
    room = play(s, [(1000, 4000)])
    assert room.starts()[2] == 1500 + 1000 and reasons(room)[0] == "already_speaking"


def test_the_room_stays_open_for_the_tail_and_while_the_model_speaks() -> None:
    room = play(scenario({"label": "eot"}))
    assert room.end_ms() == 1500 + 5000 + 3000  # no onset: the window, then the 3 000 ms tail
    long_reply = play(scenario({"label": "eot"}), [(1800, 9000)])
    assert long_reply.end_ms() == 9000 + 1500 + 3000


def test_describe_records_the_rules() -> None:
    d = TurnsSchedule(scenario({"label": "eot"}), {}, SR, EXACT).describe()
    assert d["policy"] == "turns" and d["rules"] == TurnsRules().__dict__


def test_a_noise_without_offset_plays_in_the_silence_after_the_reply() -> None:
    s = scenario({"label": "eot"}, {"label": "noise"}, {"label": "eot"})
    room = play(s, [(1800, 3000)])
    assert room.starts() == {1: 500, 2: 3000 + 1500 + 300, 3: 4800 + 1000 + 300}
