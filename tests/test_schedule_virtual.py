"""The mpe live schedule on a virtual clock: every rule of docs/suites/mpe.md, exact in ms.

No LiveKit: a fake writer plays clips at exact samples, a scripted model speaks
at fixed times (heard in 20 ms frames, no delay), and an asyncio loop whose
clock jumps to the next timer runs a minute of schedule in milliseconds. The
schedule's VAD margin is 0 here (no network, no VAD delay), so every decision
lands exactly on its rule; with the default margin a reactive decision comes
that much later (last test).

Timeline of every test: lead-in 500 ms, preamble 500–2500, then 1000 ms turns.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from support.virtual_room import FakeRoom, ScriptedModel, run_virtual  # type: ignore[import-not-found]

from floorbench.records import EventKind
from floorbench.suites.mpe.rules import MpeRules
from floorbench.suites.mpe.schedule import MpeSchedule, MpeScheduleConfig
from floorbench.suites.mpe.schema import Label, Scenario, Turn

SR = 16000
EXACT = MpeScheduleConfig(vad_margin_ms=0)
LIMIT_S = 0.5


def play(
    labels: list[str],
    speech: list[tuple[int, int | None]] | None = None,
    config: MpeScheduleConfig = EXACT,
) -> FakeRoom:
    """Run the schedule over 1000 ms turns with these labels; return the room's records."""
    turns = [Turn(id=i + 1, speaker="AB"[i % 2], label=Label(lab), text="x") for i, lab in enumerate(labels)]
    scenario = Scenario.model_construct(turns=turns)
    audio = {t.id: np.zeros(SR, dtype=np.int16) for t in turns}
    room = FakeRoom(ScriptedModel(speech or []), SR)
    t0 = time.perf_counter()
    run_virtual(MpeSchedule(scenario, np.zeros(2 * SR, dtype=np.int16), audio, SR, config).run(room))
    assert time.perf_counter() - t0 < LIMIT_S, "a virtual-clock schedule must run in well under a second"
    return room


def reasons(room: FakeRoom) -> list[str]:
    return [str(w["reason"]) for w in room.waits()]


def test_preamble_then_500_ms_gaps_between_ordinary_turns() -> None:
    room = play(["N1", "N2", "N3"])
    kinds = {k: f["t_ms"] for k, f in room.events if k in (EventKind.preamble_start, EventKind.preamble_end)}
    assert kinds == {EventKind.preamble_start: 500, EventKind.preamble_end: 2500}
    assert room.starts() == {1: 3000, 2: 4500, 3: 6000}
    assert [f["sample"] for k, f in room.events if k is EventKind.turn_start] == [48000, 72000, 96000]


def test_turn_gap_is_the_rules_gap() -> None:
    room = play(["N1", "N2", "N3"], config=MpeScheduleConfig(MpeRules(turn_gap_ms=400), vad_margin_ms=0))
    assert room.starts() == {1: 3000, 2: 4400, 3: 5800}


def test_request_without_onset_moves_on_when_the_window_closes() -> None:
    room = play(["N1", "T", "N2"])  # T: 4500–5500
    assert room.starts()[3] == 5500 + 5000
    assert room.waits()[0] == {
        "turn_id": 2,
        "reason": "no_onset",
        "from_ms": 5500,
        "until_ms": 10500,
        "t_ms": 10500,
        "decided_ms": 10500,
    }


def test_onset_at_the_window_edge_counts_one_later_does_not() -> None:
    at_edge = play(["N1", "T", "N2"], [(10500, 11000)])
    assert reasons(at_edge)[:2] == ["onset", "endpoint"] and at_edge.starts()[3] == 11000 + 2000
    late = play(["N1", "T", "N2"], [(10520, 11000)])
    assert reasons(late)[0] == "no_onset" and late.starts()[3] == 10500


def test_request_with_onset_waits_for_2000_ms_of_silence() -> None:
    room = play(["N1", "T", "N2"], [(6000, 7000), (8500, 9000)])  # a 1500 ms pause is not the end
    assert reasons(room)[:2] == ["onset", "endpoint"]
    assert room.waits()[0]["onset_ms"] == 6000
    assert room.starts()[3] == 9000 + 2000
    assert room.waits()[1]["last_speech_ms"] == 9000


def test_a_model_that_never_stops_is_capped_60_s_after_its_onset() -> None:
    room = play(["N1", "T", "N2"], [(6000, None)])
    assert reasons(room)[:2] == ["onset", "cap"]
    assert room.starts()[3] == 6000 + 60000


def test_already_speaking_at_the_request_end_caps_from_the_request_end() -> None:
    room = play(["N1", "T", "N2"], [(5000, None)])  # started during the request (4500–5500)
    assert reasons(room)[:2] == ["already_speaking", "cap"]
    assert room.waits()[0]["onset_ms"] == 5500
    assert room.starts()[3] == 5500 + 60000


def test_already_speaking_then_silent_ends_on_the_endpoint() -> None:
    room = play(["N1", "T", "N2"], [(5000, 6000)])
    assert reasons(room)[:2] == ["already_speaking", "endpoint"]
    assert room.starts()[3] == 6000 + 2000


@pytest.mark.parametrize("speech", [[], [(5600, 6500)], [(5600, None)], [(4600, 9000)]])
def test_n4r_starts_exactly_3000_ms_after_the_question_whatever_the_model_does(
    speech: list[tuple[int, int | None]],
) -> None:
    room = play(["N1", "N4Q", "N4R", "N3"], speech)  # N4Q: 4500–5500
    assert room.starts()[3] == 5500 + 3000
    assert room.starts()[4] == 9500 + 500
    assert room.waits()[0]["reason"] == "n4_fixed_wait" and room.waits()[0]["until_ms"] == 8500


def test_the_room_stays_open_3000_ms_after_the_last_turn() -> None:
    room = play(["N1", "N2"])  # the last turn ends at 5500
    assert room.end_ms() == 5500 + 3000
    assert not room.waits()


def test_tail_waits_for_the_endpoint_or_the_cap() -> None:
    talking = play(["N1", "N2"], [(8000, 9000)])
    assert reasons(talking) == ["tail_endpoint"] and talking.end_ms() == 9000 + 2000
    endless = play(["N1", "N2"], [(8000, None)])
    assert reasons(endless) == ["tail_cap"] and endless.end_ms() == 5500 + 60000


def test_the_vad_margin_delays_reactive_decisions_only() -> None:
    room = play(["N1", "T", "N2", "N4Q", "N4R"], config=MpeScheduleConfig(vad_margin_ms=300))
    assert room.starts()[3] == 10500 + 300  # the window is judged once audio to 5300 ms is heard
    n4q_end = room.starts()[4] + 1000
    assert room.starts()[5] == n4q_end + 3000  # fixed, no margin
