"""Suite turns: a true negative earned by silence the model did not keep (a tone over a pause) is flagged.

Real Silero VAD on a real tone: it is not speech, so the counts (TurnBench's, read from speech decisions
alone) keep the pause as a true negative; the scores, the terminal and the report say that loud sound
covered it, and a silent track stays unflagged.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import soundfile as sf

from floorbench.suites.turns.score import score_turns

RATE = 16000
CLIPS = [(1, "pause", 500, 1500), (2, "eot", 3500, 4500)]
"""the pause's negative span is 1500–3500 ms (until the next clip starts)"""


def dialogue(folder: Path, sid: str, tone_ms: tuple[int, int] | None) -> None:
    folder.mkdir(parents=True)
    audio = np.zeros(7 * RATE, np.float32)
    if tone_ms is not None:
        a, b = (t * RATE // 1000 for t in tone_ms)
        audio[a:b] = 0.3 * np.sin(2 * np.pi * 440 * np.arange(b - a) / RATE)
    sf.write(str(folder / "model.wav"), audio, RATE, subtype="PCM_16")
    turns = [{"turn_id": i, "speaker": "U", "label": lab, "start_ms": s, "end_ms": e} for i, lab, s, e in CLIPS]
    (folder / "turns.json").write_text(json.dumps({"scenario_id": sid, "pair_id": sid, "condition": "casual",
                                                   "turns": turns}))


def test_a_tone_over_a_pause_is_flagged_not_passed_unsaid(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    dialogue(rec / "toned", "toned", (1700, 3200))
    dialogue(rec / "quiet", "quiet", None)
    scores, out = score_turns(rec, tmp_path / "out", workers=1, resamples=0)
    by_id = {d["scenario_id"]: d for d in scores["dialogues"]}
    assert by_id["toned"]["eot"]["tn"] == by_id["quiet"]["eot"]["tn"] == 1  # the counts stay TurnBench's
    flagged = {d["scenario_id"]: d for d in scores["non_speech_sound"]["dialogues"]}
    assert set(flagged) == {"toned"}
    (start, end), = flagged["toned"]["sounds_ms"]
    assert abs(start - 1700) <= 100 and abs(end - 3200) <= 100
    assert flagged["toned"]["true_negatives_over_sound"] == {"eot": 1}
    assert scores["non_speech_sound"]["true_negatives_over_sound"] == {"eot": 1, "yield": 0}
    (warning,) = scores["warnings"]
    assert warning.startswith("toned: 1.5 s of loud sound that is not speech") and "eot 1" in warning
    assert "Loud sound that is not speech" in (out / "turns_report.md").read_text()


def test_floorbench_score_prints_the_warning(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from floorbench.cli import app

    rec = tmp_path / "rec"
    dialogue(rec / "toned", "toned", (1700, 3200))
    res = CliRunner().invoke(app, ["score", str(rec), "--out", str(tmp_path / "o"), "--workers", "1", "--resamples", "0"])
    assert res.exit_code == 0, res.output
    assert any(x.startswith("warning: toned: 1.5 s of loud sound") for x in res.output.splitlines()), res.output
