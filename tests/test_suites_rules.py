"""The mpe rules are declared once: one record drives both the live schedule and the scorer."""

from __future__ import annotations

from dataclasses import asdict, fields

import numpy as np
import pytest
from support.virtual_room import FakeRoom, ScriptedModel, run_virtual  # type: ignore[import-not-found]

from floorbench.records import DialogueTurn
from floorbench.suites.mpe import rules as mpe
from floorbench.suites.mpe.items import Kind, Metric
from floorbench.suites.mpe.rules import MpeRules
from floorbench.suites.mpe.schedule import MpeSchedule, MpeScheduleConfig
from floorbench.suites.mpe.schema import Label, Scenario, Turn
from floorbench.suites.mpe.score import ScoreOptions
from floorbench.suites.mpe.timing import Dialogue, timing_items

SR = 16000
CHANGED = MpeRules(onset_window_ms=3000, n4_window_ms=2000, response_cap_ms=30000)


def schedule_starts(
    rules: MpeRules, labels: list[str], speech: list[tuple[int, int | None]]
) -> dict[int, int]:
    turns = [Turn(id=i + 1, speaker="A", label=Label(lab), text="x") for i, lab in enumerate(labels)]
    audio = {t.id: np.zeros(SR, dtype=np.int16) for t in turns}
    room = FakeRoom(ScriptedModel(speech), SR)
    sched = MpeSchedule(
        Scenario.model_construct(turns=turns), None, audio, SR, MpeScheduleConfig(rules, vad_margin_ms=0)
    )
    run_virtual(sched.run(room))
    return room.starts()


def score(rules: MpeRules, segments: list[tuple[int, int]]) -> dict[tuple[int, Metric], Kind]:
    turns = [
        DialogueTurn(turn_id=1, speaker="A", label="T", start_ms=0, end_ms=1000, gold="x"),
        DialogueTurn(turn_id=2, speaker="B", label="N4Q", start_ms=20000, end_ms=21000),
        DialogueTurn(turn_id=3, speaker="A", label="N4R", start_ms=24000, end_ms=25000),
    ]
    items = timing_items(Dialogue("s", "p", "explicit", turns, 40000), segments, rules)
    return {(i.turn_id, i.metric): i.kind for i in items}


def test_one_changed_record_changes_the_schedule_and_the_scorer() -> None:
    # schedule: lead-in 500 ms, no preamble; T 500–1500, N2 then; N4Q later
    default = schedule_starts(MpeRules(), ["T", "N2", "N4Q", "N4R"], [])
    changed = schedule_starts(CHANGED, ["T", "N2", "N4Q", "N4R"], [])
    assert default[2] == 1500 + 5000 and changed[2] == 1500 + 3000
    assert default[4] - default[3] == 1000 + 3000 and changed[4] - changed[3] == 1000 + 2000
    endless = schedule_starts(CHANGED, ["T", "N2"], [(2000, None)])
    assert endless[2] == 2000 + 30000

    # scorer: an onset 4000 ms after the request, speech 2500 ms after the question
    segs = [(5000, 6000), (23500, 26000)]
    assert score(MpeRules(), segs)[(1, Metric.fresh_onset_rate)] is Kind.fresh_onset
    assert score(CHANGED, segs)[(1, Metric.fresh_onset_rate)] is Kind.late_onset
    assert score(MpeRules(), segs)[(2, Metric.window_response)] is Kind.spoke_in_window
    assert score(CHANGED, segs)[(2, Metric.window_response)] is Kind.silent_in_window


def test_the_record_is_what_meta_and_scores_record() -> None:
    sched = MpeSchedule(Scenario.model_construct(turns=[]), None, {}, SR, MpeScheduleConfig(CHANGED))
    assert sched.describe()["rules"] == asdict(CHANGED)
    assert ScoreOptions().timing_rules == MpeRules()


def test_every_rule_is_documented_and_the_gap_range_is_enforced() -> None:
    src = open(mpe.__file__).read()
    for f in fields(MpeRules):
        assert f'{f.name}: int = {f.default}\n    """' in src, f"{f.name} needs a docstring"
    with pytest.raises(ValueError, match="turn_gap_ms=399"):
        MpeRules(turn_gap_ms=399)
