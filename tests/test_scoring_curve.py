"""The drawing curve `floorbench score` stores in vad.jsonl for the report."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from floorbench.scoring.judges import JudgeError, make_judge
from floorbench.scoring.vad_stage import CURVE_POINTS, VadResult, window_rms


def test_curve_keeps_peaks_and_levels_in_integer_percent() -> None:
    probs = np.array([0.0, 0.9, 0.1, 0.2, 0.2, 0.2, 0.4], dtype=np.float32)
    rms = np.array([0.5, 0.5, 0.5, 0.1, 0.1, 0.1, 0.0], dtype=np.float32)
    c = VadResult(Path("model.wav"), probabilities=probs, window_rms=rms).curve()
    assert c is not None
    assert c["curve_step_ms"] == 96  # three 32 ms windows per step
    assert c["probability_pct"] == [90, 20, 40]  # the highest probability in each step
    assert c["envelope_pct"] == [100, 20, 0]  # RMS of each step, percent of the loudest


def test_a_long_track_is_cut_to_at_most_curve_points_steps() -> None:
    n = 5 * CURVE_POINTS + 1
    c = VadResult(Path("model.wav"), probabilities=np.zeros(n, np.float32), window_rms=np.zeros(n, np.float32)).curve()
    assert c is not None
    assert c["curve_step_ms"] == 6 * 32
    assert len(c["probability_pct"]) == len(c["envelope_pct"]) <= CURVE_POINTS
    assert c["envelope_pct"] == [0] * len(c["envelope_pct"])  # silence: no division by zero


def test_no_audio_no_curve() -> None:
    assert VadResult(Path("model.wav"), error="unreadable").curve() is None


def test_window_rms_matches_the_vad_windows() -> None:
    audio = np.full(512 * 3 + 100, 16384, dtype=np.int16)
    assert window_rms(audio) == pytest.approx([0.5, 0.5, 0.5])


def test_an_unknown_judge_is_a_judge_error() -> None:
    with pytest.raises(JudgeError, match="unknown judge 'bogus'"):
        make_judge("bogus")
    with pytest.raises(JudgeError, match="needs a model name"):
        make_judge("llm")
