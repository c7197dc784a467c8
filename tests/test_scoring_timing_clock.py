"""Scoring on the timing clock: a recording its jitter buffer stretched no longer moves a score.

A model reply that begins 4.88 s after a request is a fresh onset. The recorder's jitter buffer
inserted 150 ms of silence before it, so on the recorder's clock it began after the 5 s window:
scored from model.wav alone it fails. With turns.json's ``model_time_map`` (model.wav onto the
model's sent clock, `sender_timing.model_leg`) it is found where it was sent, and passes — the same
items as from a recording that nothing stretched. A folder without the map (from before the sender
records, or from elsewhere) is scored on the recorder's clock, and says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import soundfile as sf

from floorbench.audio.alignment import best_match
from floorbench.audio.track_alignment import warp
from floorbench.pipelines.room.sender_log import SentClock
from floorbench.pipelines.run.sender_timing import model_leg
from floorbench.pipelines.run.sent_tracks import SentTrack
from floorbench.scoring.inputs import clock_counts, discover
from floorbench.suites.mpe.content import clip_for
from floorbench.suites.mpe.items import Metric
from floorbench.suites.mpe.score import ScoreOptions, _timing_stage
from tests.conftest import TINY_SUITE

SR = 16000
MS = 1_000_000
LATENCY = 50 * SR // 1000  # the model → room leg: 50 ms
CLIPS = sorted((TINY_SUITE / "audio").glob("*.flac"))


def clip(k: int) -> np.ndarray:
    audio, rate = sf.read(str(CLIPS[k]), dtype="int16")
    assert rate == SR
    return audio


def silence(ms: int) -> np.ndarray:
    return np.zeros(ms * SR // 1000, dtype=np.int16)


def model_sent() -> tuple[np.ndarray, int]:
    """A long first reply (most of the track's anchors: its latency is the median) and a short second one."""
    parts = [silence(3750), clip(0), clip(1), clip(3), silence(9000)]
    second = sum(len(p) for p in parts)
    parts += [clip(2), silence(3000)]
    return np.concatenate(parts), second


def folder(root: Path, name: str, model_wav: np.ndarray, end_ms: tuple[int, int], time_map: list[list[int]] | None) -> Path:
    d = root / name
    d.mkdir()
    sf.write(str(d / "model.wav"), model_wav, SR, subtype="PCM_16")
    turns = [
        {"turn_id": 1, "speaker": "A", "label": "T", "start_ms": end_ms[0] - 2000, "end_ms": end_ms[0], "gold": "x"},
        {"turn_id": 2, "speaker": "B", "label": "T", "start_ms": end_ms[1] - 2000, "end_ms": end_ms[1], "gold": "y"},
    ]
    data = {"scenario_id": name, "pair_id": name, "condition": "explicit", "turns": turns,
            "model_wav_end_ms": len(model_wav) * 1000 // SR}
    if time_map is not None:
        data |= {"clock": "timing", "model_time_map": time_map}
    (d / "turns.json").write_text(json.dumps(data))
    return d


def fresh_onsets(root: Path) -> dict[str, dict[int, tuple[bool | None, int | None]]]:
    disc = discover(root)
    items_by, _, _ = _timing_stage(disc.scorable, ScoreOptions(workers=1), None)
    return {
        s.folder.name: {i.turn_id: (i.passed, i.onset_ms) for i in items if i.metric is Metric.fresh_onset_rate}
        for s, items in items_by
    }


def test_a_stretched_recording_no_longer_moves_a_score(tmp_path: Path) -> None:
    sent, second = model_sent()
    rng = np.random.default_rng(0)
    ideal = np.concatenate([np.zeros(LATENCY, np.int16), sent])  # what the room heard with nothing stretched
    stretched, _ = warp(sent, [(second - 3 * SR, 150 * SR // 1000)])  # 150 ms inserted in the silence before
    recorded = np.concatenate([np.zeros(LATENCY, np.int16), stretched]) + rng.normal(0, 20, LATENCY + len(stretched))
    recorded = np.clip(recorded, -32768, 32767).astype(np.int16)

    starts = np.arange(0, len(sent), 480, dtype=np.int64)  # sent clock: sample n at n / SR (t = 0 at model.wav's 0)
    clock = SentClock(SR, starts, starts * 1_000_000_000 // SR, np.minimum(480, len(sent) - starts))
    leg = model_leg(SentTrack(sent, SR, clock), recorded, SR, record_start_ns=0)
    assert leg.onsets_found and leg.median_ns is not None and abs(leg.median_ns - 50 * MS) <= 200_000
    time_map = leg.time_map(0).points()

    # where Silero hears the second reply begin in the ideal recording: the request ended 4.88 s before it
    probe = tmp_path / "probe"
    probe.mkdir()
    folder(probe, "ideal", ideal, (2000, 10_000), None)
    onset = fresh_onsets(probe)["ideal"][2][1]
    assert onset is not None
    ends = (2000, onset - 4880)

    root = tmp_path / "runs"
    root.mkdir()
    folder(root, "ideal", ideal, ends, None)
    folder(root, "recorder", recorded, ends, None)
    folder(root, "timing", recorded, ends, time_map)
    out = fresh_onsets(root)
    assert out["ideal"][2] == (True, onset)
    passed, late = out["recorder"][2]
    assert passed is False and late is not None and late >= onset + 140  # the stretch moved the score
    passed, mapped = out["timing"][2]
    assert passed is True and mapped is not None and abs(mapped - onset) <= 32  # one VAD window
    assert out["timing"][1] == out["recorder"][1] == out["ideal"][1]  # before the stretch nothing moved
    assert clock_counts(discover(root).scorable) == {"clock_timing": 1, "clock_recorder": 2}


def test_an_items_audio_is_cut_from_where_it_lies_in_the_recording(tmp_path: Path) -> None:
    """ASR transcribes the recording: an item's window on the timing clock is carried back onto it."""
    sent, second = model_sent()
    stretched, _ = warp(sent, [(second - 3 * SR, 150 * SR // 1000)])
    starts = np.arange(0, len(sent), 480, dtype=np.int64)
    clock = SentClock(SR, starts, starts * 1_000_000_000 // SR, np.minimum(480, len(sent) - starts))
    leg = model_leg(SentTrack(sent, SR, clock), stretched, SR, record_start_ns=0)
    tmap = leg.time_map(0)
    d = folder(tmp_path, "timing", stretched, (2000, 10_000), tmap.points())
    items_by, _, _ = _timing_stage(discover(d).scorable, ScoreOptions(workers=1), None)
    item = next(i for i in items_by[0][1] if i.turn_id == 2 and i.metric is Metric.fresh_onset_rate)
    start = second * 1000 // SR  # the reply, on the timing clock (the first reply's latency is 0 here)
    item.window_start_ms, item.window_end_ms, item.speech = start - 100, start + 1000, [(start, start + 900)]
    reply = stretched[second + 150 * SR // 1000 :][: 500 * SR // 1000].astype(np.float64)  # where it was recorded
    at, score = best_match(reply, clip_for(item, stretched, tmap).astype(np.float64), 0, 400 * SR // 1000)
    assert score > 0.99 and abs(at - 100 * SR // 1000) <= SR // 1000  # 100 ms into the cut, as in the window
    at, score = best_match(reply, clip_for(item, stretched).astype(np.float64), 0, 400 * SR // 1000)
    assert score < 0.99 or abs(at - 100 * SR // 1000) > 100 * SR // 1000  # unmapped: 150 ms off
