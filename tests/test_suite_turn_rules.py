"""A suite's own rules on turns.json and its run agreement come through its plug-in parts, not the engine.

Reading turns.json (`floorbench.scoring.inputs.load_turns`) keeps the rules every suite shares and asks
the suite whose labels the dialogue carries for the rest (`check_turns`); `judge-agreement SCORED --b`
runs the reporting suite's `run_agreement`, and a suite without one is one error line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from floorbench import plugins
from floorbench.cli import app
from floorbench.records import DialogueTurn
from floorbench.scoring.inputs import InputError, load_turns


def knock_rules(turns: Sequence[DialogueTurn]) -> str | None:
    """The test suite's own rule: an answer follows its knock."""
    for i, t in enumerate(turns):
        if t.label == "answer" and (i == 0 or turns[i - 1].label != "knock"):
            return f"turn {t.turn_id}: an answer must follow its knock"
    return None


@pytest.fixture
def knock_suites() -> Iterator[None]:
    base: dict[str, Any] = {"summary": "test", "doc": "suites/mpe.md", "load_scenario": "x:y", "suite_info": "x:y",
            "live_schedule": "x:y", "score": "x:y", "recognises": "x:y", "reports": "x:y"}
    plugins.register_suite(plugins.SuitePlugin(name="knocking", labels=("knock", "answer"),
                                               check_turns=f"{__name__}:knock_rules", **base))
    plugins.register_suite(plugins.SuitePlugin(name="tapping", labels=("tap", "reply"), **base))
    try:
        yield
    finally:
        plugins.unregister_suite("knocking")
        plugins.unregister_suite("tapping")


def write_turns(tmp_path: Path, labels: list[str]) -> Path:
    turns = [{"turn_id": i + 1, "speaker": "A", "label": lab, "start_ms": 1000 * i, "end_ms": 1000 * i + 500,
              "text": ""} for i, lab in enumerate(labels)]
    p = tmp_path / "turns.json"
    p.write_text(json.dumps({"scenario_id": "s1", "pair_id": "p1", "condition": "explicit", "turns": turns}))
    return p


def test_a_suites_check_turns_is_asked_and_names_file_and_turn(tmp_path: Path, knock_suites: None) -> None:
    assert [t.label for t in load_turns(write_turns(tmp_path, ["knock", "answer"])).turns] == ["knock", "answer"]
    p = write_turns(tmp_path, ["answer", "knock"])
    with pytest.raises(InputError) as e:
        load_turns(p)
    assert str(e.value) == f"{p}: turn 1: an answer must follow its knock"


def test_a_suite_without_check_turns_keeps_only_the_shared_rules(tmp_path: Path, knock_suites: None) -> None:
    assert len(load_turns(write_turns(tmp_path, ["reply", "reply", "tap"])).turns) == 3
    with pytest.raises(InputError, match="unknown label 'knock'; use one of tap, reply"):
        load_turns(write_turns(tmp_path, ["tap", "knock"]))


def test_a_first_label_no_suite_declares_lists_every_suites_labels(tmp_path: Path, knock_suites: None) -> None:
    p = write_turns(tmp_path, ["X9", "T"])
    with pytest.raises(InputError) as e:
        load_turns(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}: turn 1: unknown label 'X9'; use one suite's labels: ") and "\n" not in msg
    assert "mpe: T, N1, N2, N3, N4Q, N4R" in msg and "knocking: knock, answer" in msg


def test_judge_agreement_on_a_run_whose_suite_has_no_run_agreement_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "turns_scores.json").write_text("{}")
    r = CliRunner().invoke(app, ["judge-agreement", str(tmp_path), "--b", "offline"])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "suite turns's judges are measured against people" \
        in lines[0] and "Traceback" not in r.output
