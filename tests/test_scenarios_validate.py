"""The validator rejects each broken constraint with one line naming file, scenario and turn — and the CLI shows no trace."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import yaml
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scenarios.validate import ScenarioError, load_suite

TINY = Path(__file__).resolve().parent / "fixtures" / "suites" / "tiny"
FILE = "tiny01-explicit.yaml"
SID = "tiny01-explicit"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    shutil.copytree(TINY, root)
    return root


def _edit(root: Path, fn, name: str = FILE) -> Path:
    p = root / "scenarios" / name
    data = yaml.safe_load(p.read_text())
    fn(data)
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    return p


def _labels(*labels):
    def fn(d):
        for t, lab in zip(d["turns"], labels, strict=True):
            t["label"] = lab
    return fn


def _two_t(d):
    d["turns"][2]["label"] = "T"
    d["turns"][2]["gold"] = "x"


def _t_first(d):
    d["turns"][1]["label"] = "N2"
    d["turns"][1].pop("gold")
    d["turns"][0]["label"] = "T"
    d["turns"][0]["gold"] = "18 dollars"


def _t_last(d):
    d["turns"][1]["label"] = "N2"
    d["turns"][1].pop("gold")
    d["turns"][5]["label"] = "T"
    d["turns"][5]["gold"] = "x"
    d["turns"][4]["label"] = "N2"
    d["turns"][4].pop("attempt")


def _n4q_alone(d):
    d["turns"][5]["label"] = "N3"


def _no_gold(d):
    d["turns"][1].pop("gold")


def _unknown_label(d):
    d["turns"][2]["label"] = "N5"


def _unknown_speaker(d):
    d["turns"][3]["speaker"] = "E"


CASES = [
    ("two T", _two_t, None, "2 T turns"),
    ("T first", _t_first, 1, "T is the first turn"),
    ("T last", _t_last, 6, "T is the last turn"),
    ("N4Q without N4R", _n4q_alone, 5, "N4Q is not immediately followed by an N4R"),
    ("missing gold", _no_gold, 2, "T has no gold answer"),
    ("unknown label", _unknown_label, 3, "unknown label 'N5'"),
    ("unknown speaker", _unknown_speaker, 4, "unknown speaker 'E'"),
]


@pytest.mark.parametrize(("case", "edit", "turn", "want"), CASES, ids=[c[0] for c in CASES])
def test_each_broken_constraint_is_one_named_line(suite, case, edit, turn, want):
    path = _edit(suite, edit)
    with pytest.raises(ScenarioError) as ei:
        load_suite(suite)
    msg = ei.value.problems[0]  # type: ignore[attr-defined]
    assert "\n" not in msg
    assert msg.startswith(str(path)), msg
    assert f"scenario {SID}" in msg
    if turn is not None:
        assert f"turn {turn}:" in msg
    assert want in msg
    assert ";" in msg, "the message says how to fix it"


def test_missing_audio_file(suite):
    (suite / yaml.safe_load((suite / "scenarios" / FILE).read_text())["turns"][2]["audio"]).unlink()
    with pytest.raises(ScenarioError) as ei:
        load_suite(suite)
    msg = str(ei.value)
    assert f"scenario {SID}: turn 3: audio file audio/" in msg and "is missing" in msg and "floorbench render" in msg


def test_audio_at_unsupported_rate(suite):
    rel = yaml.safe_load((suite / "scenarios" / FILE).read_text())["turns"][0]["audio"]
    sf.write(str(suite / rel), np.zeros(22050, dtype=np.int16), 22050, format="FLAC")
    with pytest.raises(ScenarioError) as ei:
        load_suite(suite)
    msg = str(ei.value)
    assert f"scenario {SID}: turn 1:" in msg and "22050 Hz; use 16000, 24000 or 48000 Hz" in msg


def test_yaml_syntax_error(suite):
    p = suite / "scenarios" / FILE
    p.write_text(p.read_text().replace("label: N2", "label: [N2", 1))
    with pytest.raises(ScenarioError) as ei:
        load_suite(suite)
    msg = str(ei.value)
    assert msg.startswith(str(p)) and "YAML syntax error at line" in msg and "\n" not in msg


def test_pair_rules(suite):
    _edit(suite, lambda d: d["turns"][3].__setitem__("text", "Where is my hat?"), name="tiny01-implicit.yaml")
    with pytest.raises(ScenarioError) as ei:
        load_suite(suite)
    assert "pair tiny01: turns [4] differ; only the request and the turn before it may differ" in str(ei.value)


def test_explicit_request_must_name_aria(suite):
    _edit(suite, lambda d: d["turns"][1].__setitem__("text", "What do we owe in total?"))
    with pytest.raises(ScenarioError, match="turn 2: the explicit request does not name Aria"):
        load_suite(suite, audio=False)


def test_strict_vocabulary(suite):
    _edit(suite, lambda d: d["attributes"].__setitem__("location", "submarine"))
    load_suite(suite, audio=False)  # free vocabulary by default (imports)
    with pytest.raises(ScenarioError, match="location 'submarine' is not in the vocabulary"):
        load_suite(suite, audio=False, strict_vocab=True)


@pytest.mark.parametrize(("case", "edit", "turn", "want"), CASES[:3], ids=[c[0] for c in CASES[:3]])
def test_cli_prints_the_line_without_a_trace(suite, case, edit, turn, want):
    _edit(suite, edit)
    res = CliRunner().invoke(app, ["suite", "info", str(suite)])
    assert res.exit_code == 2
    out = res.output
    assert "Traceback" not in out and want in out and f"scenario {SID}" in out
