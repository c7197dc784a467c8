"""ASR with the real tiny.en: each clip keeps its own words, caching, long clips, no-speech rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fixtures.scoring import build  # type: ignore[import-not-found]

from floorbench.scoring.asr import PIECE_S, Transcriber, clip_audio, folder_digest, resolve_model
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


def _fake_model(folder: Path, weights: bytes) -> Path:
    """A folder shaped like a CTranslate2 Whisper model (never loaded: keys need no model)."""
    folder.mkdir(parents=True)
    (folder / "model.bin").write_bytes(weights)
    (folder / "config.json").write_text("{}")
    (folder / "vocabulary.txt").write_text("a\nb\n")
    return folder


CLIP = np.linspace(-0.5, 0.5, 1600, dtype=np.float32)


def test_cache_key_covers_every_setting_that_changes_a_text(tmp_path: Path) -> None:
    folder = _fake_model(tmp_path / "model", b"weights-1")
    base = Transcriber(str(folder))
    same = Transcriber(str(folder), cpu_threads=1, batch_size=2)  # neither changes a clip's text
    assert base.key(CLIP) == same.key(CLIP)
    changed = [
        Transcriber(str(folder), beam_size=5),
        Transcriber(str(folder), compute_type="float32"),
        Transcriber(str(folder), device="cuda"),
    ]
    keys = {base.key(CLIP), *(t.key(CLIP) for t in changed)}
    assert len(keys) == 4
    assert base.key(CLIP) != base.key(CLIP[:-1])
    ident = base.identity()
    assert ident["no_speech"] == [0.6, -1.0] and ident["language"] == "en" and ident["beam_size"] == 1


def test_a_local_folder_is_keyed_by_its_content_not_its_name(tmp_path: Path) -> None:
    a = _fake_model(tmp_path / "a" / "model", b"weights-1")
    b = _fake_model(tmp_path / "b" / "model", b"weights-2")  # same basename, other weights
    copy = _fake_model(tmp_path / "copy-elsewhere", b"weights-1")  # other name, same weights
    assert Transcriber(str(a)).key(CLIP) != Transcriber(str(b)).key(CLIP)
    assert Transcriber(str(a)).key(CLIP) == Transcriber(str(copy)).key(CLIP)


def test_the_model_digest_is_remembered_until_a_file_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import floorbench.scoring.asr as asr

    folder = _fake_model(tmp_path / "model", b"weights-1")
    first = Transcriber(str(folder), cache=JsonlCache(tmp_path / "asr.jsonl")).key(CLIP)
    monkeypatch.setattr(asr, "folder_digest", lambda _f: pytest.fail("hashed again although nothing changed"))
    assert Transcriber(str(folder), cache=JsonlCache(tmp_path / "asr.jsonl")).key(CLIP) == first
    monkeypatch.undo()
    (folder / "model.bin").write_bytes(b"weights-2, retrained")
    assert Transcriber(str(folder), cache=JsonlCache(tmp_path / "asr.jsonl")).key(CLIP) != first


def test_packaged_tiny_en_is_keyed_by_its_weights() -> None:
    source, _ = resolve_model("tiny.en")
    ident = Transcriber("tiny.en").identity()
    assert ident["model"] == f"sha256:{folder_digest(Path(source))}"


def test_transcripts_are_cached_as_each_clip_completes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that dies on the third group keeps the first two clips' texts; the re-run
    transcribes only the third."""
    import floorbench.scoring.asr as asr

    monkeypatch.setattr(asr, "GROUP", 1)
    folder = _fake_model(tmp_path / "model", b"weights-1")
    clips = [CLIP, CLIP * 0.5, CLIP * 0.25]
    calls: list[int] = []

    def dies_on_the_third(pieces: list[np.ndarray]) -> list[str]:
        calls.append(len(pieces))
        if len(calls) == 3:
            raise RuntimeError("killed")
        return [f"text {len(calls)}"]

    first = Transcriber(str(folder), cache=JsonlCache(tmp_path / "asr.jsonl"))
    monkeypatch.setattr(first, "_transcribe_group", dies_on_the_third)
    with pytest.raises(RuntimeError, match="killed"):
        first.transcribe(clips)
    again = Transcriber(str(folder), cache=JsonlCache(tmp_path / "asr.jsonl"))
    asked: list[int] = []
    monkeypatch.setattr(again, "_transcribe_group", lambda pieces: asked.append(len(pieces)) or ["text 3"])
    assert again.transcribe(clips) == ["text 1", "text 2", "text 3"] and asked == [1]
