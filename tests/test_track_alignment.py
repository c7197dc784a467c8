"""A stretched or squeezed recording traced back to the sender's clock (floorbench.audio.track_alignment, time_map).

Synthetic sent tracks (bursts of speech-like noise between silences), warped the way a receiver's
jitter buffer warps them — samples inserted (a copy of the ones before, as deceleration repeats a
pitch period) and removed (acceleration), in speech and in silence — then mapped back: every onset
lands within two samples of where it was sent.
"""

from __future__ import annotations

import numpy as np
import pytest

from floorbench.audio.time_map import TimeMap, time_map_of
from floorbench.audio.track_alignment import align_track, audible_runs, warp
from tests.support.warp import SR, jitter_buffer_edits, received, sent_track


def timing_map(anchors: list, latency_us: int) -> TimeMap:
    """What the runner builds: recorded position → sent position's time + the leg's constant latency."""
    return TimeMap.from_points([(a.rec * 1_000_000 // SR, a.sent * 1_000_000 // SR + latency_us) for a in anchors])


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_warped_onsets_map_back_within_two_samples(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    sent, onsets = sent_track(seed)
    edits = jitter_buffer_edits(rng, len(sent), onsets, count=40)
    warped, where = warp(sent, edits)
    latency = 900  # 56.25 ms
    rec = received(warped, rng, latency)
    net = sum(n for _, n in edits)
    assert abs(net) > 0 and sum(abs(n) for _, n in edits) > 40 * 40  # the recording really is warped

    anchors = align_track(sent, rec, SR, first_lag=0)
    lags = np.array([a.lag for a in anchors])
    latency_us = int(np.median(lags)) * 1_000_000 // SR
    tmap = timing_map(anchors, latency_us)
    for s in onsets:
        true_rec = int(where[s]) + latency  # where the onset's audio really is in the recording
        mapped = tmap.to_timing_us(true_rec * 1_000_000 / SR)
        sent_time = s * 1_000_000 // SR + latency_us
        assert abs(mapped - sent_time) <= 2 * 1_000_000 // SR, (s, mapped - sent_time)
    # the recorder's own clock would have been off by up to the net stretch before an onset
    worst_raw = max(abs((int(where[s]) + latency - s) * 1_000_000 // SR - latency_us) for s in onsets)
    assert worst_raw > 2 * 1_000_000 // SR


def test_an_edit_just_after_an_onset_does_not_move_it() -> None:
    """The onset's anchor is refined on its first 20 ms, so a removal 30 ms in leaves it in place."""
    rng = np.random.default_rng(7)
    sent, onsets = sent_track(11, bursts=4)
    edits = [(o + 30 * SR // 1000, -320 if i % 2 else 320) for i, o in enumerate(onsets)]
    warped, where = warp(sent, edits)
    rec = received(warped, rng, 480)
    anchors = align_track(sent, rec, SR, first_lag=0)
    found = [a for a in anchors if a.kind == "onset"]
    assert len(found) == len(onsets)
    for a, s in zip(found, onsets, strict=True):
        assert 0 <= a.sent - s < 8  # the first audible sample of the burst
        assert abs(a.rec - (int(where[a.sent]) + 480)) <= 2


def test_squeezed_and_stretched_timing_of_segments() -> None:
    """Speech segments found on a squeezed recording come back on the sender's clock; cut back again, they
    cover the same recorded audio."""
    rng = np.random.default_rng(3)
    sent, onsets = sent_track(5, bursts=6)
    edits = [(o - SR // 4, -400) for o in onsets[1:]]  # 25 ms squeezed out of every silence
    warped, _ = warp(sent, edits)
    rec = received(warped, rng, 800)
    anchors = align_track(sent, rec, SR, first_lag=0)
    tmap = timing_map(anchors, 800 * 1_000_000 // SR)
    runs = audible_runs(rec, SR)
    mapped = tmap.segments_ms([(s * 1000 // SR, e * 1000 // SR) for s, e in runs])
    for (start, _), onset in zip(mapped, onsets, strict=True):
        assert abs(start - (onset + 800) * 1000 // SR) <= 1
    back = tmap.spans_to_recording_ms(mapped)
    for (s, e), (bs, be) in zip(runs, back, strict=True):
        assert abs(bs - s * 1000 // SR) <= 1 and abs(be - e * 1000 // SR) <= 1


def test_warp_bookkeeping() -> None:
    x = np.arange(100, dtype=np.int16)
    y, where = warp(x, [(10, 5), (50, -10)])
    assert len(y) == 95
    assert where[9] == 9 and where[10] == 15  # five inserted before sample 10
    assert (where[50:60] == -1).all() and where[60] == 55
    assert y[where[70]] == 70


def test_time_map_rules() -> None:
    assert TimeMap().to_timing_ms(1234) == 1234  # empty: the recording's own clock
    m = TimeMap.from_points([(0, 100_000), (1_000_000, 1_090_000), (2_000_000, 2_090_000), (1_500_000, 50_000)])
    assert m.points()[0] == [0, 100_000]
    assert [1_500_000, 50_000] not in m.points()  # would fold time back: dropped
    assert m.to_timing_ms(500) == 595
    assert m.to_timing_ms(3000) == 3090  # slope one past the last point
    assert m.to_recording_ms(m.to_timing_ms(1700)) == 1700
    assert time_map_of(m.points()) == m
    assert time_map_of(None).is_identity
    with pytest.raises(ValueError):
        time_map_of([[0, 1.5]])
    with pytest.raises(ValueError):
        TimeMap((0, 0), (1, 2))
