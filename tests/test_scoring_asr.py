"""ASR with the real tiny.en: each clip keeps its own words, caching, long clips, no-speech rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fixtures.scoring import build  # type: ignore[import-not-found]

from floorbench.scoring.asr import PIECE_S, Transcriber, clip_audio, resolve_model
from floorbench.scoring.cache import JsonlCache


def f32(name: str) -> np.ndarray:
    return build.clip(name).astype(np.float32) / 32768.0


def test_tiny_en_resolves_to_the_packaged_folder() -> None:
    source, model_id = resolve_model("tiny.en")
    assert Path(source, "model.bin").is_file() and model_id == "tiny.en"


def test_every_clip_keeps_its_own_words_and_results_are_cached(tmp_path: Path) -> None:
    cache = JsonlCache(tmp_path / "asr.jsonl")
    asr = Transcriber(cache=cache)
    clips = [f32("answer_burger"), f32("backchannel"), np.zeros(0, np.float32), f32("muffled"), f32("bare_number"),
             f32("answer_taco")]
    texts = asr.transcribe(clips)
    assert "burger" in texts[0].lower() and "taco" not in texts[0].lower()
    assert "got it" in texts[1].lower()
    assert texts[2] == ""
    assert texts[3] == ""  # Silero hears speech, Whisper no words: its no-speech rule drops "you"
    assert "12" in texts[4]
    assert "taco" in texts[5].lower() and "burger" not in texts[5].lower()
    again = Transcriber(cache=JsonlCache(tmp_path / "asr.jsonl"))
    again._load = None  # type: ignore[assignment]  # a cache hit must not need the model at all
    assert again.transcribe(clips) == texts


def test_a_clip_longer_than_one_whisper_window_is_split_and_joined() -> None:
    long = np.concatenate([f32("long_answer"), np.zeros(16000 * 8, np.float32), f32("long_answer"),
                           np.zeros(16000, np.float32), f32("answer_taco")])
    assert len(long) / 16000 > PIECE_S
    (text,) = Transcriber().transcribe([long])
    low = text.lower()
    assert low.count("let me check") == 2 and "taco place on" in low.replace("taco of place", "taco place")


def test_clip_audio_keeps_pads_inside_the_window() -> None:
    audio = np.arange(16000 * 3, dtype=np.int16)
    c = clip_audio(audio, [(1000, 1500)], bounds=(1000, 2000), pad_ms=100)
    assert len(c) == 16 * 600 and c[0] == pytest.approx(16000 / 32768.0)
