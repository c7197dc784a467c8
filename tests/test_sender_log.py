"""What the senders keep (floorbench.pipelines.room.sender_log): the model's source as a perfect player plays
it, the playback's frames, a listener's arrivals — and their readers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

from floorbench.pipelines.room.sender_log import (
    HeardTrackLog,
    SentTrackLog,
    read_frames_log,
    read_sent_clock,
)

RATE = 24000
FRAME = 960  # 40 ms, pipecat's output chunk
S = 1_000_000_000


class Clock:
    def __init__(self) -> None:
        self.t = 0

    def __call__(self) -> int:
        return self.t


def frame(value: int) -> np.ndarray:
    return np.full(FRAME, value, dtype=np.int16)


def test_a_burst_queued_ahead_plays_at_real_time_pace_from_when_it_was_handed_over(tmp_path: Path) -> None:
    now = Clock()
    log = SentTrackLog(tmp_path, "model", RATE, now)
    now.t = 1 * S  # a reply: five frames at once (TTS is faster than real time)
    for k in range(5):
        log.capture(frame(100 + k))
    now.t = S + 150_000_000  # still playing (ends at 1.2 s): the sixth follows without a gap
    log.capture(frame(105))
    now.t = 2 * S  # after a pause the next reply plays at once
    log.capture(frame(200))
    log.close()

    audio, rate = sf.read(str(tmp_path / "model.sent.wav"), dtype="int16")
    clock = read_sent_clock(tmp_path / "model.sent.tsv", RATE)
    assert rate == RATE
    assert clock.time_ns(0) == S
    assert clock.time_ns(5 * FRAME) == S + 200_000_000  # the sixth frame, right after the fifth
    end_first = 6 * FRAME  # 1.24 s
    silence = (2 * S - (S + 240_000_000)) * RATE // S
    assert (audio[end_first : end_first + silence] == 0).all()  # the pause the source played, as silence
    assert audio[end_first + silence] == 200
    assert clock.time_ns(end_first + silence) == 2 * S
    assert len(audio) == end_first + silence + FRAME
    gaps = clock.gaps()
    assert [(g.sample, g.gap_ns) for g in gaps] == [(end_first + silence, 760_000_000)]


def test_a_cleared_queue_drops_what_had_not_played(tmp_path: Path) -> None:
    now = Clock()
    log = SentTrackLog(tmp_path, "model", RATE, now)
    now.t = 3 * S
    for k in range(5):  # 200 ms queued
        log.capture(frame(10 + k))
    now.t = 3 * S + 50_000_000  # interrupted 50 ms in: 1200 samples played, the rest is dropped
    log.clear()
    now.t = 3 * S + 60_000_000
    log.capture(frame(99))
    log.close()

    audio, _ = sf.read(str(tmp_path / "model.sent.wav"), dtype="int16")
    clock = read_sent_clock(tmp_path / "model.sent.tsv", RATE)
    assert clock.clears == [(1200, 3 * S + 50_000_000, 5 * FRAME - 1200)]
    assert list(audio[:1200]) == [10] * 960 + [11] * 240
    assert (audio[1200:1440] == 0).all() and audio[1440] == 99  # 10 ms of silence, then the next frame
    assert clock.time_ns(1440) == 3 * S + 60_000_000
    assert clock.frames == 3  # the dropped frames were never sent
    assert clock.time_ns(1000) == 3 * S + round(1000 * S / RATE)


def test_a_torn_last_line_and_unknown_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "model.sent.tsv"
    path.write_text("f\t0\t100\t960\t100\nx\tjunk\nf\t960\t40000100\t96")
    clock = read_sent_clock(path, RATE)
    assert clock.frames == 2 and clock.time_ns(960) == 40_000_100


def test_the_heard_log_is_a_frames_log(tmp_path: Path) -> None:
    log = HeardTrackLog(tmp_path, "model", 16000)
    for k in range(3):
        log.frame(np.full(160, k, np.int16), 5 * S + k * 10_000_000)
    log.close()
    ends, arrivals = read_frames_log(tmp_path / "model.heard.tsv")
    assert list(ends) == [160, 320, 480]
    assert list(arrivals) == [5 * S, 5 * S + 10_000_000, 5 * S + 20_000_000]
    audio, rate = sf.read(str(tmp_path / "model.heard.wav"), dtype="int16")
    assert rate == 16000 and len(audio) == 480
