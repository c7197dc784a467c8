"""One streaming VAD: windowing of any chunking, the segment rules at their exact
boundaries (short runs dropped, then short pauses merged), and the live monitor
giving the batch segments."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fixtures.scoring import build  # type: ignore[import-not-found]

from floorbench.audio.vad import (
    WINDOW,
    WINDOW_MS,
    Edge,
    SpeechSegmenter,
    VadRules,
    VadStream,
    probabilities_to_segments,
    speech_probabilities,
)
from floorbench.clock import SessionClock
from floorbench.pipelines.room.speech_monitor import ModelSpeechMonitor
from floorbench.records import TimelineWriter, read_timeline

RULES = VadRules()


class Scripted:
    """A fake Silero: returns the next scripted probability, whatever the window holds."""

    def __init__(self, probs: list[float]) -> None:
        self.probs: Iterator[float] = iter(probs)
        self.windows: list[np.ndarray] = []

    def __call__(self, window: np.ndarray) -> np.ndarray:
        self.windows.append(window)
        return np.array([next(self.probs)], dtype=np.float32)


def ms_probs(*parts: tuple[int, float]) -> np.ndarray:
    """Probabilities at 1 ms per window: ``(duration_ms, p)`` pieces in order."""
    return np.concatenate([np.full(n, p, dtype=np.float32) for n, p in parts])


def segs(*parts: tuple[int, float]) -> list[tuple[int, int]]:
    return probabilities_to_segments(ms_probs(*parts), RULES, window_ms=1)


# -- the stream: windows whatever the chunking ------------------------------------------


@pytest.mark.parametrize(
    "sizes", [[WINDOW * 5], [1] * 40 + [WINDOW * 5], [160] * 20, [511, 2, 1023, 100, 924]]
)
def test_any_chunking_gives_the_same_windows(sizes: list[int]) -> None:
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(sum(sizes)) * 3000).astype(np.int16)
    fake = Scripted([0.1 * i for i in range(100)])
    stream = VadStream(fake)
    got, at = [], 0
    for n in sizes:
        got += stream.feed(x[at : at + n])
        at += n
    assert [w.number for w in got] == list(range(len(x) // WINDOW))
    assert [w.start for w in got] == [i * WINDOW for i in range(len(got))]
    assert [w.probability for w in got] == pytest.approx([0.1 * i for i in range(len(got))])
    for w in got:
        assert w.audio.dtype == np.int16 and np.array_equal(w.audio, x[w.start : w.start + WINDOW])
        assert np.array_equal(fake.windows[w.number], x[w.start : w.start + WINDOW] / np.float32(32768.0))
    assert stream.samples == len(x)


def test_stream_equals_batch_silero_on_speech() -> None:
    x = np.zeros(16000 * 3, dtype=np.int16)
    clip = build.clip("answer_taco")[: 16000 * 2]
    x[8000 : 8000 + len(clip)] = clip
    stream = VadStream()
    probs = [w.probability for i in range(0, len(x), 160) for w in stream.feed(x[i : i + 160])]
    batch = speech_probabilities(x)
    assert len(probs) == len(batch)
    assert np.abs(np.array(probs) - batch).max() < 1e-6
    assert probabilities_to_segments(np.array(probs)) == probabilities_to_segments(batch) != []


# -- the segment rules at their boundaries (1 ms windows) ------------------------------


def test_hysteresis_threshold_and_neg_threshold() -> None:
    assert segs((100, 0.0), (200, 0.5), (100, 0.0)) == [(100, 300)]
    assert segs((100, 0.0), (200, 0.49), (100, 0.0)) == []
    # speech goes on while p stays at or above 0.35, and ends below it
    assert segs((200, 0.6), (1000, 0.36), (100, 0.0)) == [(0, 1200)]
    assert segs((200, 0.6), (1000, 0.34), (100, 0.0)) == [(0, 200)]


@pytest.mark.parametrize(("run_ms", "kept"), [(119, False), (120, True), (121, True)])
def test_runs_shorter_than_120_ms_are_dropped(run_ms: int, kept: bool) -> None:
    assert segs((50, 0.0), (run_ms, 0.9), (50, 0.0)) == ([(50, 50 + run_ms)] if kept else [])


@pytest.mark.parametrize(("pause_ms", "merged"), [(799, True), (800, False), (801, False)])
def test_pauses_shorter_than_800_ms_are_merged(pause_ms: int, merged: bool) -> None:
    got = segs((200, 0.9), (pause_ms, 0.0), (200, 0.9))
    end = 200 + pause_ms + 200
    assert got == ([(0, end)] if merged else [(0, 200), (200 + pause_ms, end)])


def test_short_runs_are_dropped_before_pauses_are_merged() -> None:
    # two 100 ms blips 50 ms apart: each is dropped (merging first would keep 250 ms)
    assert segs((100, 0.9), (50, 0.0), (100, 0.9), (1000, 0.0)) == []
    # a blip between two segments 1100 ms apart does not bridge them
    assert segs((200, 0.9), (500, 0.0), (50, 0.9), (550, 0.0), (200, 0.9)) == [(0, 200), (1300, 1500)]


def test_a_run_still_going_at_the_end_is_judged_by_its_length() -> None:
    assert segs((100, 0.0), (120, 0.9)) == [(100, 220)]
    assert segs((100, 0.0), (119, 0.9)) == []


def test_streaming_edges_come_when_the_rules_settle() -> None:
    seg = SpeechSegmenter(RULES, window_ms=1)
    probs = ms_probs((10, 0.0), (200, 0.9), (300, 0.0), (200, 0.9), (900, 0.0))
    edges = {i: e for i, p in enumerate(probs) for e in seg.push(float(p))}
    # onset once the run has lasted 120 ms (window 129), dated at its first window;
    # the second run merges (300 ms pause); offset 800 ms after the last speech
    assert edges == {129: Edge("onset", 10), 710 + 800 - 1: Edge("offset", 710)}
    assert seg.finish() == []


# -- the live monitor uses the same rules -----------------------------------------------


def test_monitor_segments_equal_batch_segments(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    probs = np.repeat(rng.choice([0.05, 0.4, 0.7, 0.95], size=120, p=[0.45, 0.15, 0.15, 0.25]), 3).tolist()
    probs += [0.0] * 40  # enough silence to close the last segment
    timeline = TimelineWriter(tmp_path / "timeline.jsonl")
    mon = ModelSpeechMonitor(SessionClock(), timeline, RULES, vad=VadStream(Scripted(probs)))
    pcm = np.zeros(len(probs) * WINDOW, dtype=np.int16)
    for i in range(0, len(pcm), 160):  # 10 ms frames arriving exactly on time
        mon.feed(pcm[i : i + 160], (i + 160) * 1_000_000_000 // 16000)
    timeline.close()
    batch = probabilities_to_segments(np.array(probs, dtype=np.float32), RULES, WINDOW_MS)
    assert batch and mon.segments == [(s * 1_000_000, e * 1_000_000) for s, e in batch]
    assert mon.onsets_ns == [s * 1_000_000 for s, _ in batch]
    edges = [(e.reason, e.t_ms) for e in read_timeline(tmp_path / "timeline.jsonl")]
    assert edges == [x for s, e in batch for x in (("onset", s), ("offset", e))]


def test_the_monitor_keeps_the_audio_a_branching_caller_listens_to(tmp_path: Path) -> None:
    """`speech_audio` gives the received samples of the segments overlapping a span, padded 100 ms."""
    probs = [0.0] * 20 + [0.95] * 30 + [0.0] * 60  # one segment: windows 20–50 (640–1600 ms)
    timeline = TimelineWriter(tmp_path / "timeline.jsonl")
    mon = ModelSpeechMonitor(SessionClock(), timeline, RULES, vad=VadStream(Scripted(probs)))
    pcm = (np.arange(len(probs) * WINDOW) % 30000).astype(np.int16)  # each sample says where it is
    for i in range(0, len(pcm), 160):
        mon.feed(pcm[i : i + 160], (i + 160) * 1_000_000_000 // 16000)
    timeline.close()
    assert mon.speech_audio(0, 500 * 1_000_000) is None  # no speech there
    heard = mon.speech_audio(1000 * 1_000_000, 1100 * 1_000_000)
    assert heard is not None
    audio, lo, hi = heard
    assert (lo, hi) == (640 * 1_000_000, 1600 * 1_000_000)  # the whole segment, not just the span asked
    assert len(audio) == (1600 - 640 + 200) * 16
    assert round(audio[0] * 32768) == 540 * 16 and audio.dtype == np.float32  # from 100 ms before its onset
