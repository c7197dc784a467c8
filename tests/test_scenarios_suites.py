"""The committed suites (the README's example and the tiny live-test fixture) are valid and rendered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import soundfile as sf

from floorbench.scenarios.render import file_sha256
from floorbench.scenarios.validate import load_suite
from floorbench.speech import tts
from floorbench.suites.mpe.schema import Label
from floorbench.suites.mpe.validate import pairs as mpe_pairs

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "floorbench" / "data" / "suites" / "example"
TINY = REPO / "tests" / "fixtures" / "suites" / "tiny"


def _duration_ms(root: Path, rel: str) -> int:
    info = sf.info(str(root / rel))
    return info.frames * 1000 // info.samplerate


@pytest.mark.parametrize("root", [EXAMPLE, TINY], ids=["example", "tiny"])
def test_suite_loads_with_audio_and_matches_manifest(root):
    suite = load_suite(root)
    manifest = json.loads((root / "audio" / "manifest.json").read_text())
    used = {suite.suite.preamble.audio} | {t.audio for s in suite.scenarios for t in s.turns}
    assert used == set(manifest["clips"])
    for rel, entry in manifest["clips"].items():
        assert file_sha256(root / rel) == entry["sha256"], rel
        assert sf.info(str(root / rel)).samplerate == 16000
    for s in suite.scenarios:
        voices = [sp.voice for sp in s.speakers.values()]
        assert len(set(voices)) == len(voices), "each human has a distinct voice"
        assert all(v in tts.available_voices() for v in voices)


def test_example_suite_reads_like_the_readme_promises():
    suite = load_suite(EXAMPLE)
    pairs = mpe_pairs(suite.scenarios)
    assert len(pairs) >= 4 and len(suite.scenarios) >= 8
    n4_pairs = 0
    for group in pairs.values():
        for s in group:
            assert 3 <= len(s.speakers) <= 4
            assert 6 <= len(s.turns) <= 10
            labels = [t.label for t in s.turns]
            assert labels.count(Label.T) == 1
            assert {Label.N1, Label.N2, Label.N3} <= set(labels)
            names = {sp.name for sp in s.speakers.values()}
            assert len(names) == len(s.speakers)
            req = s.request
            if s.condition == "explicit":
                assert "Aria" in req.text
            else:
                assert "Aria" not in req.text
            assert req.id in s.differs
        n4_pairs += Label.N4Q in [t.label for t in group[0].turns]
    assert n4_pairs >= 2
    pre_ms = _duration_ms(EXAMPLE, suite.suite.preamble.audio)
    assert 22_000 <= pre_ms <= 40_000, pre_ms


def test_tiny_suite_is_fast_enough_for_live_tests():
    suite = load_suite(TINY)
    assert len(mpe_pairs(suite.scenarios)) == 2
    pre_ms = _duration_ms(TINY, suite.suite.preamble.audio)
    assert 1_500 <= pre_ms <= 4_000, pre_ms
    for s in suite.scenarios:
        assert 4 <= len(s.turns) <= 6
        labels = {t.label for t in s.turns}
        assert {Label.T, Label.N4Q, Label.N4R} <= labels
        for t in s.turns:
            ms = _duration_ms(TINY, t.audio)
            assert 900 <= ms <= 2_500, (s.scenario_id, t.id, ms)
    all_labels = {t.label for s in suite.scenarios for t in s.turns}
    assert {Label.N1, Label.N2, Label.N3} <= all_labels


@pytest.mark.parametrize("root", [EXAMPLE, TINY], ids=["example", "tiny"])
def test_n4q_attempts_speak_longer_than_the_yield_window(root):
    """The oracle starts speaking the attempt; it must still be talking when the N4R starts."""
    suite = load_suite(root, audio=False)
    attempts = {t.attempt for s in suite.scenarios for t in s.turns if t.label is Label.N4Q}
    assert attempts and None not in attempts
    for text in attempts:
        audio = tts.synthesize(text, "piper:joe", 16000)
        assert audio.size / 16000 > 3.5, text
