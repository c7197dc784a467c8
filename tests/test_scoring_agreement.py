"""`floorbench judge-agreement`, `score_async`, and the import hygiene of the scoring package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures.scoring import build  # type: ignore[import-not-found]
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scoring.agreement import cohen_kappa
from floorbench.scoring.score import ScoreOptions, score_async

# scores whole recordings with the packaged ASR and MiniLM models: seconds per module
pytestmark = pytest.mark.slow


def test_cohen_kappa() -> None:
    assert cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    assert cohen_kappa(["a", "a", "b", "b"], ["a", "b", "a", "b"]) == 0.0
    assert cohen_kappa([], []) is None


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import asyncio

    rec = tmp_path_factory.mktemp("agree") / "rec"
    for n, (answer, intr) in enumerate([("answer_taco", "backchannel"), ("answer_burger", "bare_number"),
                                        ("short_answer", "backchannel")]):
        turns = [
            build.Turn(1, "N2", 500, 2000, "Option one is the taco place."),
            build.Turn(2, "T", 4500, 6000, "Aria, which one is cheapest?", "the taco place", "D"),
            build.Turn(3, "N3", 14000, 15000, "Where are my keys?"),
        ]
        spec = build.DialogueSpec(f"a{n}", turns, [build.Speech(2100, intr), build.Speech(6600, answer)], 17000)
        build.write_dialogue(rec / spec.scenario_id, spec)
    out = rec.parent / "scored"
    result = asyncio.run(score_async(rec, ScoreOptions(out=out, resamples=200, workers=1)))
    assert result.scores.scenarios["scored"] == 3
    return out


def test_judge_agreement_offline_against_itself(scored: Path) -> None:
    res = CliRunner().invoke(app, ["judge-agreement", str(scored), "--a", "offline", "--b", "offline"])
    assert res.exit_code == 0, res.output
    data = json.loads((scored / "judge_agreement.json").read_text())
    assert data["tasks"]["answer"]["n"] == 3 and data["tasks"]["answer"]["agreement"] == 1.0
    assert data["tasks"]["intrusion"]["n"] == 3 and data["tasks"]["intrusion"]["disagreements"] == []
    assert data["tasks"]["answer"]["confusion"] == {"correct|correct": 1, "wrong|wrong": 2}


def test_judge_agreement_needs_a_scored_folder(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["judge-agreement", str(tmp_path), "--b", "offline"])
    assert res.exit_code == 2 and "run `floorbench score" in res.output


def test_importing_scoring_and_report_pulls_in_no_livekit_or_pipecat() -> None:
    code = (
        "import sys, floorbench.scoring, floorbench.scoring.score, floorbench.scoring.commands, "
        "floorbench.report.render, floorbench.scoring.judges.llm, floorbench.scoring.agreement;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('livekit', 'pipecat', 'torch'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
