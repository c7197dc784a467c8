"""`floorbench judge-agreement --labels` with av rubric labels: the judge against a person's scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.suites.av.agreement import dimension_report, weighted_kappa
from tests.test_av_judge import _Endpoint, endpoint  # noqa: F401  (the stand-in endpoint fixture)
from tests.test_av_score_run import build_run


def test_weighted_kappa_is_one_when_equal_and_penalises_far_misses_more() -> None:
    assert weighted_kappa([0, 2, 5, 3], [0, 2, 5, 3]) == 1.0
    near = weighted_kappa([1, 2, 3, 4, 5], [2, 3, 4, 5, 4])
    far = weighted_kappa([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])
    assert near is not None and far is not None and near > 0 > far
    assert weighted_kappa([], []) is None


def test_dimension_report_counts_exact_and_near_agreement() -> None:
    r = dimension_report([4, 4, 2, 0], [4, 3, 4, 0])
    assert (r["n"], r["exact"], r["within_1"], r["mae"]) == (4, 0.5, 0.75, 0.75)


def _labels(tmp_path: Path) -> Path:
    """A person's scores on the payloads of a scored run (no judge needed to get them)."""
    run = build_run(tmp_path)
    res = CliRunner().invoke(
        app, ["score", str(run), "--out", str(tmp_path / "s"), "--workers", "1", "--resamples", "0"]
    )
    assert res.exit_code == 0, res.output
    clips = json.loads((tmp_path / "s" / "av_scores.json").read_text())["clips"]
    assert all(c["rubric_payload"]["event"]["dynamic"] == c["dynamic"] for c in clips)
    human = {"h1": (4, 5, 3), "s1": (5, 5, 4), "s2": (2, 1, 1)}
    rows = [
        {
            "id": c["scenario_id"],
            "payload": c["rubric_payload"],
            **dict(zip(("fluency", "flow", "grounding"), human[c["scenario_id"]], strict=True)),
        }
        for c in clips
    ]
    path = tmp_path / "rubric_labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rubric_labels_measure_the_judge(endpoint: str, tmp_path: Path) -> None:  # noqa: F811
    labels = _labels(tmp_path)
    res = CliRunner().invoke(
        app,
        [
            "judge-agreement",
            "--labels",
            str(labels),
            "--judge",
            "llm:m",
            "--judge-base-url",
            endpoint,
            "--out",
            str(tmp_path / "agree"),
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads((tmp_path / "agree" / "av_rubric_agreement.json").read_text())
    assert out["n"] == 3 and out["unparsable"] == 0 and len(_Endpoint.seen) == 3
    # the stand-in always answers 4/5/3: fluency 4 vs 4,5,2 → exact 1/3, within one 2/3
    assert (out["dimensions"]["fluency"]["exact"], out["dimensions"]["fluency"]["within_1"]) == (
        0.3333,
        0.6667,
    )
    assert {(d["id"], d["dimension"]) for d in out["disagreements"]} == {
        ("s2", "fluency"),
        ("s2", "flow"),
        ("s2", "grounding"),
    }
    assert "fluency: exact=0.3333 within_1=0.6667" in res.output


def test_rubric_labels_need_an_llm_judge(tmp_path: Path) -> None:
    labels = _labels(tmp_path)
    res = CliRunner().invoke(app, ["judge-agreement", "--labels", str(labels), "--out", str(tmp_path / "a")])
    assert res.exit_code == 2 and "the av rubric has no offline judge" in res.output


@pytest.mark.parametrize(
    "row, message",
    [
        (
            {"id": "x", "payload": {}, "fluency": 6, "flow": 1, "grounding": 1},
            "'fluency' must be the person's integer",
        ),
        (
            {"id": "x", "payload": {}, "fluency": 3, "grounding": 1},
            "'flow' must be the person's integer score",
        ),
        ({"id": "x", "payload": "text", "fluency": 3}, "needs a 'payload' object"),
    ],
)
def test_a_bad_labels_row_is_one_line_naming_it(tmp_path: Path, row: dict[str, object], message: str) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        json.dumps({"id": "ok", "payload": {}, "fluency": 1, "flow": 1, "grounding": 1})
        + "\n"
        + json.dumps(row)
        + "\n"
    )
    res = CliRunner().invoke(
        app,
        [
            "judge-agreement",
            "--labels",
            str(path),
            "--judge",
            "llm:m",
            "--judge-base-url",
            "http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path / "a"),
        ],
    )
    assert res.exit_code == 2, res.output
    line = res.output.strip().splitlines()[-1]
    assert line.startswith("error: ") and f"{path}:2:" in line and message in line


def test_two_judge_mode_on_an_av_run_says_to_use_labels(tmp_path: Path) -> None:
    (tmp_path / "av_scores.json").write_text("{}")
    res = CliRunner().invoke(app, ["judge-agreement", str(tmp_path), "--b", "llm:m"])
    assert res.exit_code == 2 and "measured against people only: --labels FILE" in res.output
