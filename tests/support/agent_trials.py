"""A finished conversation-test trial's folder, written by hand: what `floorbench.suites.agent.score`
reads (meta.json with the schedule, model.wav, turns.json, timeline.jsonl), for tests that judge records."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from floorbench.records import (
    ClockAnchor,
    DialogueTurn,
    DialogueTurns,
    FailureKind,
    Outcome,
    RunMeta,
    write_json_atomic,
)
from floorbench.suites.agent.schedule import AgentSchedule
from floorbench.suites.agent.schema import AgentScenario

SR = 16000


def write_trial(run: Path, scenario: AgentScenario, track: np.ndarray, turns: list[DialogueTurn],
                timeline: Iterable[dict[str, Any]] = (), outcome: Outcome = Outcome.completed,
                failure: tuple[FailureKind, str] | None = None) -> Path:
    """`run/<scenario id>/` as a room leaves it: the agent's `track` (int16, 16 kHz) as model.wav, the
    caller's `turns`, the `timeline` lines; the recording lasts as long as the track."""
    folder = run / scenario.scenario_id
    folder.mkdir(parents=True)
    duration_ms = len(track) * 1000 // SR
    meta = RunMeta(floorbench_version="0", scenario_id=scenario.scenario_id, pair_id=scenario.scenario_id,
                   condition="test", suite="tests", room="r", created_wall_ns=0,
                   anchor=ClockAnchor(monotonic_ns=0, wall_ns=0), outcome=outcome, duration_ms=duration_ms,
                   schedule=AgentSchedule(scenario, {}, SR).describe())
    if failure is not None:
        meta.failure_kind, meta.failure_reason = failure
    write_json_atomic(folder / "meta.json", meta)
    sf.write(str(folder / "model.wav"), np.asarray(track, dtype=np.int16), SR)
    write_json_atomic(folder / "turns.json", DialogueTurns(scenario_id=scenario.scenario_id, pair_id=scenario.scenario_id,
                                                           condition="test", turns=turns, model_wav_end_ms=duration_ms))
    (folder / "timeline.jsonl").write_text("".join(json.dumps(x) + "\n" for x in timeline))
    return folder
