"""Batched Silero over many files gives exactly the per-file numbers; the VAD stage and its pool."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf
from fixtures.scoring import build  # type: ignore[import-not-found]

from floorbench.audio.vad import (
    VadRules,
    probabilities_to_segments,
    speech_probabilities,
    speech_probabilities_many,
)
from floorbench.scoring.vad_stage import run_vad


def canvas(ms: int, at_ms: int, name: str) -> np.ndarray:
    x = np.zeros(ms * 16, dtype=np.int16)
    c = build.clip(name)
    x[at_ms * 16 : at_ms * 16 + len(c)] = c
    return x


def test_batched_equals_one_stream_at_a_time() -> None:
    sigs = [
        canvas(9000, 1000, "answer_taco"),
        canvas(40000, 31000, "backchannel"),  # longer than one 32 s block
        canvas(3000, 500, "bare_number"),
        np.zeros(100, dtype=np.int16),  # shorter than a window
        canvas(9000, 2000, "short_answer").astype(np.float32) / 32768.0,
    ]
    many = speech_probabilities_many(sigs, batch=2)
    for s, p in zip(sigs, many, strict=True):
        one = speech_probabilities(s)
        assert p.shape == one.shape
        assert np.array_equal(p, one) or np.abs(p - one).max() < 1e-6
    segs = probabilities_to_segments(many[1], VadRules())
    assert len(segs) == 1 and 30900 <= segs[0][0] <= 31100


def test_vad_stage_pool_matches_in_process(tmp_path: Path) -> None:
    paths = []
    for n, (at, name, rate) in enumerate(
        [(1000, "answer_taco", 16000), (2000, "short_answer", 48000), (500, "bare_number", 24000)] * 2
    ):
        p = tmp_path / f"d{n}" / "model.wav"
        p.parent.mkdir()
        x = canvas(6000, at, name)
        if rate != 16000:
            import soxr

            x = soxr.resample(x, 16000, rate)
        sf.write(str(p), x, rate, subtype="PCM_16")
        paths.append(p)
    bad = tmp_path / "bad" / "model.wav"
    bad.parent.mkdir()
    sf.write(str(bad), np.zeros((1600, 2), dtype=np.int16), 16000)
    local = run_vad([*paths, bad], workers=1, batch=2)
    pooled = run_vad([*paths, bad], workers=2, batch=2)
    assert "2 channels" in (local[bad].error or "") and "\n" not in local[bad].error
    for p in paths:
        assert local[p].duration_ms == 6000
        assert np.abs(local[p].probabilities - pooled[p].probabilities).max() < 1e-6
        assert local[p].segments() == pooled[p].segments() and len(local[p].segments()) == 1
