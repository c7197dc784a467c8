"""`floorbench load`'s figures from judged trials: percentiles, failures by kind, the harness's limit, the plot.

Trials are the dicts `score_trials` returns (the fields the load step reads); the command's own
errors come before any room (one line, exit 2).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from floorbench.errors import OptionError
from floorbench.suites.agent.load import (
    failure_kind,
    latency_svg,
    parse_sessions,
    step_summary,
    stop_reason,
    table_lines,
    write_outputs,
)


def trial(sid: str, status: str = "passed", lat: list[int | None] | None = None, timing: str | None = "ok",
          error: str | None = None, failed: tuple[str, ...] = (), stop: float | None = None) -> dict[str, Any]:
    assertions = [{"check": c, "passed": False, "value": None} for c in failed]
    if stop is not None:
        assertions.append({"check": "yields_within_ms", "passed": True, "value": stop})
    return {"scenario_id": sid, "status": status, "latencies_ms": lat or [], "timing": timing, "error": error,
            "assertions": assertions}


def test_sessions_are_increasing_whole_numbers() -> None:
    assert parse_sessions("1,2,4,8") == [1, 2, 4, 8]
    assert parse_sessions(" 3 ") == [3]
    for bad in ("", "0,1", "2,1", "1,1", "1,x", "65", "1.5"):
        with pytest.raises(OptionError, match="--sessions"):
            parse_sessions(bad)


def test_a_step_pools_every_turn_and_counts_failures_by_kind() -> None:
    trials = [
        trial("a.t1", lat=[400, 500], stop=300),
        trial("a.t2", "failed", lat=[900, None], failed=("responds_within_ms",), stop=500),
        trial("a.t3", "error", timing=None, error="the room failed (join_timeout): the model never joined"),
        trial("a.t4", "error", timing=None, error="evidence missing: no turns.json"),
    ]
    s = step_summary(4, trials)
    assert (s["sessions"], s["trials"], s["passed"], s["failed"], s["errors"]) == (4, 4, 1, 1, 2)
    assert s["failure_rate"] == 0.75
    assert s["failures_by_kind"] == {"evidence_missing": 1, "join_timeout": 1, "responds_within_ms": 1}
    # four turns, one unanswered: it is the slowest, so p95 and p99 are "no response", p50 a number
    assert s["latency"] == {"turns": 4, "unanswered": 1, "p50_ms": 500, "p95_ms": None, "p99_ms": None}
    assert s["barge_in_stop"] == {"n": 2, "p50_ms": 300, "p95_ms": 500}
    assert s["timing"] == {"ok": 2} and not s["harness_limited"]
    assert stop_reason(s, 0.5, 5000) == "failure rate 0.75 above --max-failure-rate 0.50"
    assert stop_reason(s, 0.8, 5000) == "latency p95: no response (unanswered turns)"


def test_a_room_whose_timing_is_not_ok_is_the_harness_limit_not_the_agents() -> None:
    s = step_summary(8, [trial("a.t1", lat=[400]), trial("a.t2", lat=[2400], timing="degraded")])
    assert s["harness_limited"] and "a.t2" in s["harness_reason"] and "not the agent's" in s["harness_reason"]
    assert stop_reason(s, 1.0, 100_000) == s["harness_reason"]  # wins over every other reason
    quiet = step_summary(1, [trial("a.t1", lat=[400, 420])])
    assert stop_reason(quiet, 0.5, 5000) is None
    assert stop_reason(quiet, 0.5, 410) == "latency p95 420 ms above --max-p95-ms 410"


def test_failure_kind_names_the_room_failure_or_the_failed_checks() -> None:
    assert failure_kind(trial("x", "error", error="the room failed (playback_stalled): …")) == "playback_stalled"
    assert failure_kind(trial("x", "error", error="not run (no scenario folder); run the test again")) == "not_run"
    assert failure_kind(trial("x", "failed", failed=("no_overlap_ms", "contains"))) == "contains+no_overlap_ms"


def test_the_table_and_the_plot(tmp_path: Path) -> None:
    steps = [step_summary(1, [trial("a.t1", lat=[400])]),
             step_summary(2, [trial("a.t1", lat=[450]), trial("a.t2", lat=[700])]),
             step_summary(4, [trial(f"a.t{i}", lat=[None], status="failed", failed=("responds_within_ms",),
                                    timing="degraded" if i == 1 else "ok") for i in range(1, 5)])]
    lines = table_lines(steps)
    assert lines[2].startswith("| 1 | 1 | 1 | – | 400 / 400 / 400 (1, 0) |")
    assert lines[3].startswith("| 2 | 2 | 2 | – | 450 / 700 / 700 (2, 0) |")
    assert "no response / no response / no response (4, 4)" in lines[4] and "harness limit" in lines[4]
    svg = ET.fromstring(latency_svg(steps))  # well-formed XML
    ns = "{http://www.w3.org/2000/svg}"
    assert len(svg.findall(f"{ns}polyline")) == 3  # p50, p95, p99 over the two answered steps
    assert len(svg.findall(f"{ns}rect")) == 1  # the harness-limited step is shaded
    write_outputs(tmp_path, steps, "a <b> reason", {"system": "oracle", "tests": ["<script>"]})
    md = (tmp_path / "load.md").read_text()
    assert "&lt;script&gt;" in md and "<script>" not in md and "a &lt;b&gt; reason" in md
    assert (tmp_path / "load.svg").read_text().startswith("<svg")


def test_each_step_writes_its_results_as_floorbench_test_does(tmp_path: Path) -> None:
    """``callers-N/results.json``: every trial and a verdict per test, N trials of each (docs/load.md)."""
    import json

    from floorbench.suites.agent.load_command import write_step_results

    judged = [{**trial(f"greet.t{k}", "failed" if k == 2 else "passed", [400 + k]), "test": "greet", "trial": k}
              for k in (1, 2)]
    write_step_results(tmp_path / "callers-2", tmp_path / "callers-2" / "run", 2, judged)
    got = json.loads((tmp_path / "callers-2" / "results.json").read_text())
    assert (got["suite"], got["callers"], got["trials_per_test"], got["exit_code"]) == ("agent", 2, 2, 1)
    (verdict,) = got["tests"]
    assert (verdict["test"], verdict["k"], verdict["n"], verdict["status"]) == ("greet", 1, 2, "failed")
    assert [t["scenario_id"] for t in got["trials"]] == ["greet.t1", "greet.t2"]


def test_load_errors_are_one_line_before_any_room(tmp_path: Path) -> None:
    from floorbench.cli import app

    tests = tmp_path / "t.yaml"
    tests.write_text("tests:\n  - name: hi\n    steps:\n      - say: hello\n        expect: {responds_within_ms: 900}\n")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("")
    for args, says in (
        (["--sessions", "4,2"], "--sessions '4,2': give increasing numbers"),
        (["--max-failure-rate", "2"], "--max-failure-rate must be from 0 to 1"),
        (["-k", "nothing"], "no test selected"),
        (["--out", str(busy)], "not an empty folder"),
    ):
        argv = ["load", str(tests), "--model", "silent", *(args if "--out" in args else ["--out", str(tmp_path / "o"), *args])]
        res = CliRunner().invoke(app, argv)
        assert res.exit_code == 2, res.output
        assert says in res.output and "Traceback" not in res.output
    assert not (tmp_path / "o").exists()
