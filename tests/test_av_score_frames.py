"""Frames picked from a recorded video track by time on model.wav's clock (the judge's and report's frames)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from floorbench.suites.av.frames import model_track, sample_times, sampled, user_track, video_tracks
from tests.test_av_judge import _model_video
from tests.test_av_score_run import T0

FIRST = 3500
"""frame 0 arrives 3500 ms into model.wav (see `_model_video`); one frame per 100 ms after it"""


def _grey(jpeg: bytes) -> float:
    with Image.open(io.BytesIO(jpeg)) as im:
        return float(np.asarray(im.convert("L")).mean())


@pytest.mark.parametrize("skip", [0, 5])
def test_the_frame_shown_is_the_last_one_arrived_by_then(tmp_path: Path, skip: int) -> None:
    _model_video(tmp_path, skip=skip)
    tracks = video_tracks(tmp_path, T0)
    tr = model_track(tracks)
    assert tr is not None and user_track(tracks) is None and len(tr.times_ms) == 40
    got = dict(sampled(tr, [FIRST - 1, FIRST + 1250, FIRST + 3000]))
    assert FIRST - 1 not in got  # nothing had arrived yet: no frame, never a made-up one
    assert _grey(got[FIRST + 1250]) == pytest.approx(12 * 6, abs=4)  # frame 12 arrived at +1200
    assert _grey(got[FIRST + 3000]) == pytest.approx(30 * 6, abs=4)
    if skip:  # a frame missing from the file: the one before it in time stands in
        early = dict(sampled(tr, [FIRST + 250]))
        assert _grey(early[FIRST + 250]) == pytest.approx(0, abs=4)


def test_user_and_model_tracks_are_told_apart(tmp_path: Path) -> None:
    _model_video(tmp_path, name="humans.video")
    tracks = video_tracks(tmp_path, T0)
    assert model_track(tracks) is None and user_track(tracks) is not None
    empty = tmp_path / "no-video"
    empty.mkdir()
    assert video_tracks(empty, T0) == []


def test_sample_times_spread_over_the_window() -> None:
    assert sample_times((1000, 3000), 3) == [1000, 2000, 3000]
    assert sample_times((1000, 3000), 1) == [2000]
