"""Suite av: an alignment earned by the model's silence is refused where loud non-speech sound covers the
window (real Silero on a real tone), with a warning in av_scores.json, on the terminal and in the report."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import soundfile as sf

from floorbench.suites.av.score import AvScoreOptions, score_av

RATE = 16000
EVENT = {"clip": 1, "dynamic": "thinking_pause", "start_ms": 500, "end_ms": 2500}
"""a stay-silent dynamic: the model is aligned when it does not take the floor in the window"""


def dialogue(folder: Path, sid: str, tone: bool) -> None:
    folder.mkdir(parents=True)
    audio = np.zeros(8 * RATE, np.float32)
    if tone:  # 1.5 s at 440 Hz inside the clip's window (1500–3500 ms on model.wav: the clip starts at 1000)
        a, b = 1700 * RATE // 1000, 3200 * RATE // 1000
        audio[a:b] = 0.3 * np.sin(2 * np.pi * 440 * np.arange(b - a) / RATE)
    sf.write(str(folder / "model.wav"), audio, RATE, subtype="PCM_16")
    (folder / "turns.json").write_text(json.dumps({
        "scenario_id": sid, "pair_id": sid, "condition": "raised_hand", "event": EVENT,
        "turns": [{"turn_id": 1, "speaker": "U", "label": "av", "start_ms": 1000, "end_ms": 5000, "text": "so"}],
    }))


def test_a_tone_in_a_stay_silent_window_is_not_aligned(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    dialogue(rec / "toned", "toned", tone=True)
    dialogue(rec / "quiet", "quiet", tone=False)
    scores, out = score_av(rec, AvScoreOptions(out=tmp_path / "out", workers=1, resamples=0))
    clips = {c["scenario_id"]: c for c in scores["clips"]}
    assert clips["quiet"]["aligned"] and clips["quiet"]["sound_in_window_ms"] == 0
    toned = clips["toned"]
    assert toned["takeover"] == 0 and not toned["aligned"], toned
    assert toned["sound_in_window_ms"] >= 1000 and "a silence the model did not keep" in toned["aligned_note"]
    (warning,) = scores["warnings"]
    assert warning.startswith("toned: ") and "alignment (stay_silent) refused" in warning
    assert "Loud sound that is not speech" in (out / "av_report.md").read_text()
