"""`floorbench suite import-turns`: a two-channel recording with event labels becomes a live turns scenario."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scenarios.validate import ScenarioError, load_suite
from floorbench.suites.turns.importer import read_labels
from floorbench.suites.turns.schema import TurnsScenario

FIXTURE = Path(__file__).parent / "fixtures" / "suites" / "turns-tiny" / "audio"
SR = 16000


def clip(key: str) -> np.ndarray:
    x, sr = sf.read(str(FIXTURE / f"{key}.flac"), dtype="int16")
    assert sr == SR
    return x


def test_a_recording_becomes_a_scenario_that_loads_with_its_audio(tmp_path: Path) -> None:
    first, second = clip("581954a046bb5712828f"), clip("da804989cbc1642ac3db")  # "I need to book a table…", "on Friday…"
    reply, mhm = clip("5bd1c707dabbc4c38056"), clip("8ce8b58618fc29f2a712")  # the partner's speech; "Mm-hm."
    ms = lambda n: n * 1000 // SR  # noqa: E731
    a0 = 500
    a1 = a0 + ms(len(first))
    b0 = a1 + 900
    b1 = b0 + ms(len(second))
    p0 = b1 + 400
    c0 = p0 + 1500
    c1 = c0 + ms(len(mhm))
    rec = np.zeros((SR * (c1 // 1000 + 3), 2), dtype=np.int16)
    for start, x, ch in ((a0, first, 0), (b0, second, 0), (p0, reply, 1), (c0, mhm, 0)):
        rec[start * SR // 1000 : start * SR // 1000 + len(x), ch] = x
    sf.write(str(tmp_path / "talk.wav"), rec, SR)
    (tmp_path / "labels.csv").write_text(
        "label,start_ms,end_ms,text\n"
        f"pause,{a0},{a1},I need to book a table for four\n"
        f"eot,{b0},{b1},on Friday evening\n"
        f"backchannel,{c0},{c1},mm-hm\n"
    )
    res = CliRunner().invoke(app, ["suite", "import-turns", str(tmp_path / "talk.wav"), str(tmp_path / "labels.csv"),
                                   "--out", str(tmp_path / "suite")])
    assert res.exit_code == 0, res.output
    suite = load_suite(tmp_path / "suite", audio=True)
    (loaded,) = suite.scenarios
    assert isinstance(loaded, TurnsScenario)
    s = TurnsScenario.model_validate(loaded.model_dump())
    assert s.scenario_id == "talk"
    assert [c.label.value for c in s.turns] == ["pause", "eot", "backchannel"]
    assert s.turns[0].pause_ms == 900 and s.turns[0].offset_ms is None
    offset = s.turns[2].offset_ms
    assert offset is not None and 1100 <= offset <= 1550  # 1 500 ms after the partner's voiced onset, to the VAD's grain
    got, sr = sf.read(str(tmp_path / "suite" / str(s.turns[1].audio)), dtype="int16")
    assert sr == SR and np.array_equal(got, rec[b0 * SR // 1000 : b1 * SR // 1000, 0])
    info = CliRunner().invoke(app, ["suite", "info", str(tmp_path / "suite")])
    assert info.exit_code == 0 and "every audio file matches its manifest hash" in info.output, info.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("label,start_ms,end_ms,text\nshout,0,100,x\n", ":2: label must be one of eot, pause"),
        ("label,start_ms,end_ms,text\neot,500,400,x\n", ":2: 500–400 ms is empty or overlaps"),
        ("label,start_ms,end_ms,text\neot,0,900,x\npause,800,1200,y\n", ":3: 800–1200 ms is empty or overlaps"),
        ("start,end\n1,2\n", "needs a header label,start_ms,end_ms,text"),
    ],
)
def test_bad_labels_are_one_line_naming_the_row(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "labels.csv"
    p.write_text(text)
    with pytest.raises(ScenarioError, match=message.replace("(", r"\(")):
        read_labels(p)
