"""Loud sound that is not speech: found beside real Silero, and never a silence pass.

A model that answers with a tone or noise is silent to every timing rule (they
read VAD speech), so it would keep every silence window for free. Real Silero on
synthetic tones and noise, and on the real speech clips of the scoring fixtures
(which must not be flagged), then `score` on a dialogue with a tone over an N3.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fixtures.scoring import build  # type: ignore[import-not-found]

from floorbench.audio.sounds import SoundRules, non_speech_sounds, overlap_ms
from floorbench.audio.vad import probabilities_to_segments, speech_probabilities
from floorbench.scoring.vad_stage import window_rms
from floorbench.suites.mpe.items import Item, Kind, Metric
from floorbench.suites.mpe.sound_flags import refuse_silent_passes, sound_warning

SR = 16000


def _tone(hz: float, seconds: float, level: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    return (level * np.sin(2 * np.pi * hz * t) * 32767).astype(np.int16)


def _padded(a: np.ndarray) -> np.ndarray:
    pad = np.zeros(SR, dtype=np.int16)
    return np.concatenate([pad, a, pad])


def _found(audio: np.ndarray) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    p = speech_probabilities(audio)
    speech = probabilities_to_segments(p)
    return speech, non_speech_sounds(p, window_rms(audio), speech)


def test_rules_on_curves_loud_unvoiced_runs_bridged_short_bursts_and_speech_left_out() -> None:
    prob = np.zeros(100)
    rms = np.zeros(100)
    rms[10:20] = 0.1  # 320 ms loud, not speech
    rms[22:30] = 0.1  # a 64 ms gap: bridged into one sound
    rms[50:55] = 0.1  # 160 ms: a click or a cough, not flagged
    rms[70:90] = 0.1
    prob[70:90] = 0.9  # loud and speech: not a sound
    rms[92:100] = 0.01  # quiet: not a sound
    assert non_speech_sounds(prob, rms, []) == [(320, 960)]
    assert non_speech_sounds(prob, rms, [(300, 1000)]) == []  # inside a speech segment it is speech
    assert non_speech_sounds(prob, rms, [], SoundRules(bridge_ms=0)) == [(320, 640)]
    assert overlap_ms([(320, 960)], 0, 500) == 180 and overlap_ms([(320, 960)], 960, 2000) == 0
    assert non_speech_sounds(np.zeros(0), np.zeros(0), []) == []


@pytest.mark.parametrize("hz", [200.0, 440.0, 1000.0])
def test_silero_does_not_call_a_tone_speech_and_it_is_found(hz: float) -> None:
    speech, sounds = _found(_padded(_tone(hz, 3.0)))
    assert speech == []
    assert len(sounds) == 1 and sounds[0][0] <= 1100 and sounds[0][1] >= 3900, sounds


def test_noise_is_found_and_real_speech_never_is() -> None:
    noise = (np.random.default_rng(0).normal(0, 0.1, 3 * SR) * 32767).clip(-32768, 32767).astype(np.int16)
    assert _found(_padded(noise))[1]
    for name in ("answer_taco", "backchannel", "bare_number", "long_answer", "muffled", "short_answer"):
        speech, sounds = _found(_padded(build.clip(name)))
        assert speech and sounds == [], (name, speech, sounds)


def _item(metric: Metric, kind: Kind, passed: bool | None, start: int, end: int) -> Item:
    return Item(scenario_id="s", pair_id="s", condition="explicit", metric=metric, turn_id=1, label="N1",
                counted=passed is not None, passed=passed, kind=kind, reason="no speech in the window",
                window_start_ms=start, window_end_ms=end)


def test_silence_passes_over_a_sound_fail_and_silent_fails_say_the_model_made_sound() -> None:
    sounds = [(2000, 4000)]
    kept = _item(Metric.silence_keeping, Kind.silent, True, 1000, 2200)  # 200 ms covered: under 300
    covered = _item(Metric.silence_keeping, Kind.silent, True, 1000, 3000)
    yielded = _item(Metric.yield_rate, Kind.yielded, True, 3000, 6000)
    spoke = _item(Metric.silence_keeping, Kind.intrusion, False, 1000, 3000)
    no_onset = _item(Metric.fresh_onset_rate, Kind.no_onset, False, 1500, 6500)
    left_out = _item(Metric.yield_rate, Kind.no_onset_in_window, None, 1000, 5000)
    items = [kept, covered, yielded, spoke, no_onset, left_out]
    assert refuse_silent_passes(items, sounds) == 2
    assert kept.passed is True and kept.kind is Kind.silent
    for it in (covered, yielded):
        assert it.passed is False and it.kind is Kind.non_speech_sound and "2.0–4.0 s" in it.reason, it
    assert spoke.kind is Kind.intrusion and spoke.reason == "no speech in the window"
    assert no_onset.passed is False and "2000 ms of sound that is not speech" in no_onset.reason
    assert left_out.passed is None and left_out.kind is Kind.no_onset_in_window
    assert refuse_silent_passes([_item(Metric.silence_keeping, Kind.silent, True, 0, 9000)], []) == 0
    assert sound_warning("s", [], 0) is None
    assert "s: 2.0 s of loud sound" in str(sound_warning("s", sounds, 2))


@pytest.mark.slow
def test_score_refuses_the_silence_a_tone_kept_and_warns(tmp_path: Path) -> None:
    """N3 10000–12000 ms; the 'model' plays a 2.5 s tone from 10200 ms (inside the N3's window, after
    the N2's) and says nothing: that silence window is not kept. Without the tone it is kept."""
    from floorbench.suites.mpe.score import ScoreOptions, score

    turns = [build.Turn(1, "N2", 1000, 3000, "Hey Siri, how long is the bus?", None, "B"),
             build.Turn(2, "N3", 10000, 12000, "Hey Siri, how long is the bus?", None, "B")]
    for name, tone in (("quiet", False), ("tone", True)):
        folder = build.write_dialogue(tmp_path / name / "d", build.DialogueSpec(name, turns, [], 16000))
        if tone:
            import soundfile as sf

            audio, rate = sf.read(str(folder / "model.wav"), dtype="int16")
            audio[10200 * 16 : 12700 * 16] = _tone(440.0, 2.5)
            sf.write(str(folder / "model.wav"), audio, rate, subtype="PCM_16")
    results = {n: score(tmp_path / n, ScoreOptions(out=tmp_path / f"scored-{n}", resamples=100, workers=1))
               for n in ("quiet", "tone")}
    keep = {n: [i for i in r.items if i.metric is Metric.silence_keeping and i.turn_id == 2] for n, r in results.items()}
    assert [(i.passed, i.kind) for i in keep["quiet"]] == [(True, Kind.silent)]
    assert [(i.passed, i.kind) for i in keep["tone"]] == [(False, Kind.non_speech_sound)], keep["tone"]
    assert results["quiet"].scores.warnings == []
    (warning,) = results["tone"].scores.warnings
    assert warning.startswith("tone: 2.") and "s of loud sound that is not speech" in warning
    assert "1 silence pass(es) refused" in warning
    n2 = [i for i in results["tone"].items if i.metric is Metric.silence_keeping and i.turn_id == 1]
    assert [(i.passed, i.kind) for i in n2] == [(True, Kind.silent)]  # its window ends before the tone
    row = json.loads((tmp_path / "scored-tone" / "vad.jsonl").read_text().splitlines()[0])
    assert row["segments"] == [] and len(row["sounds"]) == 1
    scores = json.loads((tmp_path / "scored-tone" / "scores.json").read_text())
    assert scores["warnings"] == [warning]
