"""The room's transport latency carried from meta.json into scores.json and the report."""

from __future__ import annotations

import json
from pathlib import Path

from floorbench.records import ClockAnchor, RunMeta
from floorbench.scoring.transport_summary import latency_cell, transport_summary
from floorbench.suites.mpe.report import summary_lines
from floorbench.suites.mpe.report_tables import runs_table
from floorbench.suites.mpe.scored_runs import ScoredRun
from floorbench.suites.mpe.scores_file import ScoresFile


def meta(sid: str, latencies: list[float], network: dict | None = None) -> RunMeta:
    m = RunMeta(
        floorbench_version="0", scenario_id=sid, pair_id="p", condition="explicit", suite="tiny", room="r",
        created_wall_ns=0, anchor=ClockAnchor(monotonic_ns=0, wall_ns=0), network=network,
    )
    m.playback = {"turn_onset_error_ms": [{"turn_id": i, "error_ms": 0.0, "latency_ms": v} for i, v in enumerate(latencies)]}
    if latencies:
        m.transport_latency_ms = {"humans": {"n": len(latencies), "p50": sorted(latencies)[len(latencies) // 2]}}
    return m


def test_turns_pooled_over_scenarios_with_profiles_and_calibration(tmp_path: Path):
    net = {"profile": "delay100", "legs": ["in", "out"], "method": "processor stage"}
    metas = [meta("a", [40.0, 42.0, 44.0]), meta("b", [50.0, 60.0], net), meta("c", [])]
    (tmp_path / "latency").mkdir()
    (tmp_path / "latency" / "latency.json").write_text(json.dumps({"directions": {
        "up": {"p50": 50.0, "p95": 51.0, "max": 52.0, "n": 10},
        "round_trip": {"p50": 220.5, "p95": 240.0, "max": 250.0, "n": 10},
        "model_legs": {"p50": 170.0, "p95": 190.0, "max": 200.0, "n": 10},
    }}))
    s = transport_summary(metas, tmp_path)
    h = s["humans"]
    assert (h["n_turns"], h["n_scenarios"], h["p50"], h["max"]) == (5, 2, 44.0, 60.0)
    assert h["p95"] == 58.0  # numpy's linear percentile over 40, 42, 44, 50, 60
    assert h["scenario_p50_range"] == [42.0, 60.0]
    assert s["network"] == [net]
    assert s["model_path"]["round_trip"] == {"p50": 220.5, "p95": 240.0, "max": 250.0, "n": 10}
    assert latency_cell(s) == (
        "44.0 / 58.0 ms (5 turns); echo round trip 220.5 / 240.0 ms; impaired: delay100 on in+out"
    )


def test_no_turn_measured_and_a_broken_calibration_are_said_plainly(tmp_path: Path):
    (tmp_path / "latency").mkdir()
    (tmp_path / "latency" / "latency.json").write_text("{not json")
    s = transport_summary([meta("c", [])], tmp_path)
    assert s["humans"]["n_turns"] == 0 and "model_path" not in s and "p50" not in s["humans"]
    assert latency_cell(s) == "—"


def test_report_shows_it_beside_the_metrics(tmp_path: Path):
    scores = ScoresFile(
        created="now", source="x", source_kind="run", run="echo", scenarios={"scored": 2}, settings={},
        conditions={}, transport_latency_ms=transport_summary([meta("a", [40.0, 42.0, 44.0])]),
    )
    table = runs_table([ScoredRun(tmp_path, scores, [], label="echo")])
    assert table.headers[-1] == "room latency p50 / p95" and table.rows[0][-1] == "42.0 / 43.8 ms (3 turns)"
    assert any("room latency (playback → recorder, not subtracted): 42.0 / 43.8 ms" in line for line in summary_lines(scores))
    old = ScoresFile.model_validate({k: v for k, v in scores.model_dump().items() if k != "transport_latency_ms"})
    assert runs_table([ScoredRun(tmp_path, old, [], label="old")]).rows[0][-1] == "—"
