"""`floorbench report` on scored av runs: tables side by side, a strip and frames per clip."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from floorbench.cli import app
from tests.test_av_judge import _model_video
from tests.test_av_score_run import build_run


def _score(run: Path, out: Path) -> None:
    res = CliRunner().invoke(
        app, ["score", str(run), "--out", str(out), "--workers", "1", "--resamples", "100"]
    )
    assert res.exit_code == 0, res.output


def test_report_puts_runs_side_by_side_with_a_view_of_each_clip(tmp_path: Path) -> None:
    run_a = build_run(tmp_path / "a")
    _model_video(run_a / "h1")  # a system that sends video: its frames are shown
    turns = json.loads((run_a / "s1" / "turns.json").read_text())
    turns["turns"][0]["text"] = "<script>alert(1)</script>"
    (run_a / "s1" / "turns.json").write_text(json.dumps(turns))
    run_b = build_run(tmp_path / "b")
    info = json.loads((run_b / "run.json").read_text())
    (run_b / "run.json").write_text(json.dumps(info | {"model": {"name": "other"}}))
    _score(run_a, tmp_path / "sa")
    _score(run_b, tmp_path / "sb")
    res = CliRunner().invoke(
        app, ["report", str(tmp_path / "sa"), str(tmp_path / "sb"), "--out", str(tmp_path / "rep")]
    )
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| category | expected takeover | tester | other |" in md
    assert (
        "| smooth_handoff | 1 | 1.00" in md and "| tester | h1 | handoff_gaze | 4040–7040 | 1 | yes |" in md
    )
    html = (tmp_path / "rep" / "report.html").read_text()
    assert html.count('<svg class="timeline"') == 6  # three scored clips per run
    assert html.count('class="mdl"') >= 4  # the model's speech drawn in h1 and s2 of both runs
    assert html.count("data:image/jpeg;base64,") == 3  # h1 of run a: window start, middle, end
    assert html.count("no video recorded") == 5
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_report_refuses_a_broken_av_scores_file(tmp_path: Path) -> None:
    d = tmp_path / "scored"
    d.mkdir()
    (d / "av_scores.json").write_text("{not json")
    res = CliRunner().invoke(app, ["report", str(d), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 2
    assert "not a readable av_scores.json" in res.output
