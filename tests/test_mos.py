"""The agent's speech quality (floorbench.scoring.quality): DNSMOS inputs, scores, turns and assertions.

Short synthetic audio and one flite sentence keep it fast (each DNSMOS segment is ~0.3 s of CPU).
The P.808 input is pinned to values librosa 0.11 gave for the same signal (librosa is not a
dependency: they were computed once, beside the project, with the parameters DNSMOS uses).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from floorbench.scoring import quality
from floorbench.scoring.quality import Dnsmos, QualityError, TurnMos, p808_features, summary, turn_scores
from floorbench.suites.agent.assertions import Evidence, evaluate
from floorbench.suites.agent.report import mos_cell, mos_rows
from floorbench.suites.agent.rules import AgentRules


@pytest.fixture(scope="module")
def dnsmos() -> Dnsmos:
    return Dnsmos()


def chirp() -> np.ndarray:
    t = np.arange(8000) / 16000
    return (0.3 * np.sin(2 * np.pi * (200 + 300 * t) * t)
            + 0.01 * np.random.default_rng(3).standard_normal(8000)).astype(np.float32)


def test_the_p808_input_is_librosas_mel_spectrogram() -> None:
    m = p808_features(chirp())
    assert m.shape == (50, 120) and m.dtype == np.float32
    got = [round(float(m[i, j]), 5) for i, j in [(0, 0), (3, 5), (10, 20), (25, 60), (40, 90), (49, 119), (20, 3),
                                                 (30, 100)]]
    # librosa.feature.melspectrogram(sr=16000, n_fft=321, hop_length=160, n_mels=120), power_to_db(ref=max)
    assert got == pytest.approx([-0.20494, 0.69186, -0.63077, -0.3801, -0.35614, -0.23423, -0.10489, -0.28237],
                                abs=2e-5)
    assert float(m.mean()) == pytest.approx(-0.27868, abs=2e-5)
    assert p808_features(np.zeros(144000)).shape == (900, 120)  # one DNSMOS segment less its last hop


def speech() -> np.ndarray:
    from floorbench.speech.tts import synthesize

    return synthesize("Your table for four is booked at seven thirty tonight.", "flite:slt", 16000).astype(
        np.float32) / 32768


def test_noise_lowers_the_predicted_quality(dnsmos: Dnsmos) -> None:
    x = speech()
    noisy = x + np.random.default_rng(0).standard_normal(len(x)).astype(np.float32) * np.sqrt(np.mean(x ** 2))
    clean, bad = dnsmos.score(x), dnsmos.score(noisy)  # 0 dB white noise
    assert set(clean) == {"ovrl", "sig", "bak", "p808"}
    assert all(1.0 <= v <= 5.0 for v in (*clean.values(), *bad.values()))
    assert clean["ovrl"] > bad["ovrl"] + 0.5 and clean["bak"] > bad["bak"] + 0.5


def test_each_turn_of_a_second_or_more_is_scored_at_its_place(dnsmos: Dnsmos) -> None:
    x = speech()
    track = np.zeros(16000 * 8, dtype=np.int16)
    track[16000:16000 + len(x)] = (x * 32767).astype(np.int16)
    turns = turn_scores(track, [(200, 700), (1000, 1000 + len(x) * 1000 // 16000), (7900, 9000)], dnsmos)
    # a 500 ms turn is too short; a turn the track ends inside is not scored
    assert [(t.start_ms, t.end_ms) for t in turns] == [(1000, 1000 + len(x) * 1000 // 16000)]
    assert turns[0].ovrl == pytest.approx(dnsmos.score(x)["ovrl"], abs=0.05)  # int16 in, the same scale


def test_summary_mean_p10_and_minimum() -> None:
    turns = [TurnMos(0, 1000, v, 3.0, 4.0, 3.5) for v in (3.1, 2.5, 4.0, 3.6)]
    s = summary(turns)
    assert (s["n"], s["mean"], s["p10"], s["min"], s["sig"]) == (4, 3.3, 2.5, 2.5, 3.0)
    assert summary([])["n"] == 0 and summary([])["mean"] is None


def test_a_missing_model_file_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    with pytest.raises(QualityError) as e:
        Dnsmos(tmp_path)
    msg = str(e.value)
    assert "\n" not in msg and "sig_bak_ovr.onnx" in msg and "pip install --force-reinstall speechmos" in msg
    (tmp_path / "dnsmos_models").mkdir()
    (tmp_path / "dnsmos_models" / "sig_bak_ovr.onnx").write_bytes(b"not onnx")
    with pytest.raises(QualityError, match="not a readable ONNX model"):
        Dnsmos(tmp_path)
    with pytest.raises(QualityError, match="missing"):
        quality.predictor_identity(tmp_path)


def test_the_predictor_is_named_with_its_version_and_files() -> None:
    ident = quality.predictor_identity()
    assert ident["predictor"] == "dnsmos" and ident["package"].startswith("speechmos ")
    assert set(ident["files"]) == {"sig_bak_ovr", "p808"} and all("sha256:" in v for v in ident["files"].values())


def judged(mos: list[float] | None, expect: dict[str, float]) -> dict[str, tuple[bool, str]]:
    ev = Evidence({}, [], [], 10000, mos=mos)
    return {r.key: (r.passed, r.measured) for r in evaluate([], expect, ev, {}, AgentRules())}


def test_mos_assertions() -> None:
    mos = [3.4, 2.9, 3.8, 3.1, 3.3, 3.0, 3.6, 3.5, 3.2, 3.7, 2.2]
    got = judged(mos, {"mos_min": 2.5, "mos_p10_min": 2.8})
    assert got["test mos_min"] == (False, "lowest 2.20 over 11 turns")
    assert got["test mos_p10_min"] == (True, "p10 2.90 over 11 turns")  # nearest rank: the 2nd of 11
    assert judged([], {"mos_min": 2.0})["test mos_min"][0] is False  # no scored turn is no pass
    assert judged(None, {"mos_p10_min": 2.0})["test mos_p10_min"][0] is False


def test_a_mos_outside_1_to_5_is_refused(tmp_path: Path) -> None:
    from floorbench.suites.agent.validate import AgentTestError, load_test_file

    f = tmp_path / "t.yaml"
    f.write_text("voice: flite:slt\ntests:\n  - name: q\n    steps:\n      - say: hello\n    expect:\n"
                 "      mos_min: 7\n", encoding="utf-8")
    with pytest.raises(AgentTestError) as e:
        load_test_file(f)
    assert "mos_min is a MOS, a number from 1 to 5" in str(e.value) and "\n" not in str(e.value)


def test_the_report_shows_each_turns_scores() -> None:
    q = {**summary([TurnMos(100, 2100, 3.21, 3.5, 4.1, 3.6)]),
         "turns": [{"start_ms": 100, "end_ms": 2100, "ovrl": 3.21, "sig": 3.5, "bak": 4.1, "p808": 3.6}]}
    assert mos_cell(q) == "mean 3.21 / p10 3.21 / min 3.21 over 1 turns"
    assert mos_rows(q) == [["100", "2100", "3.21", "3.50", "4.10", "3.60"]]
    assert mos_cell(None).startswith("–")
