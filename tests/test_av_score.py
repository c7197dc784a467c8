"""Scoring of suite av, rule by rule on hand-built speech segments (no audio, no model).

Window [4000, 7000] ms throughout unless a test says otherwise; the rules are
`AvRules()` (takeover: ≥ 1000 ms of speech in the window, or ≥ 4 words).
"""

from __future__ import annotations

import pytest

from floorbench.suites.av.rules import EXPECTED_TAKEOVER, AvRules, Category
from floorbench.suites.av.verdicts import (
    clip_segments,
    is_aligned,
    is_takeover,
    latency,
    percentile,
    split_speech,
)

W = (4000, 7000)
R = AvRules()
C = Category


def test_speech_is_split_at_the_window_edges() -> None:
    sp = split_speech([(1000, 4500), (6000, 8000), (9000, 9500)], W, 12000)
    assert sp.before == [(1000, 4000)]
    assert sp.inside == [(4000, 4500), (6000, 7000)]
    assert sp.after == [(7000, 8000), (9000, 9500)]
    assert sp.inside_ms == 1500
    assert clip_segments([(100, 200)], 300, 400) == []


def test_takeover_is_one_second_of_speech() -> None:
    assert is_takeover(1000, 0, R)
    assert not is_takeover(999, 0, R)


def test_takeover_by_words_needs_four_words_in_shorter_speech() -> None:
    assert is_takeover(600, R.takeover_min_words, R)
    assert not is_takeover(600, R.takeover_min_words - 1, R)


def test_no_speech_is_never_a_takeover_whatever_the_asr_says() -> None:
    assert not is_takeover(0, 9, R)  # a hallucinated transcript of silence takes no floor


def test_rules_are_the_suites_numbers() -> None:
    custom = AvRules(takeover_min_ms=500, takeover_min_words=2)
    assert is_takeover(500, 0, custom) and not is_takeover(499, 1, custom) and is_takeover(100, 2, custom)


@pytest.mark.parametrize("category", list(Category))
def test_alignment_is_the_expected_takeover(category: Category) -> None:
    want = EXPECTED_TAKEOVER[category]
    assert is_aligned(category, bool(want)) and not is_aligned(category, not want)


def test_smooth_handoff_latency_is_the_first_onset_in_the_window() -> None:
    assert latency(C.smooth_handoff, [(1000, 2000), (4600, 6000), (6500, 6800)], W).ms == 600
    miss = latency(C.smooth_handoff, [(7500, 9000)], W)  # after the window: no response in it
    assert (miss.ms, miss.note) == (None, "no_speech_in_window")


def test_smooth_handoff_taken_early_is_a_negative_latency() -> None:
    early = latency(C.smooth_handoff, [(3700, 6000)], W)
    assert (early.ms, early.note) == (-300, "started_early")


def test_must_yield_latency_is_the_end_of_the_running_speech() -> None:
    assert latency(C.must_yield, [(1000, 4800), (6000, 6500)], W).ms == 800
    silent = latency(C.must_yield, [(1000, 3000)], W)
    assert (silent.ms, silent.note) == (0, "already_silent")
    on = latency(C.must_yield, [(1000, 7500)], W)
    assert (on.ms, on.note) == (None, "no_yield_in_window")


def test_backchannel_latency_is_the_first_sound_in_the_window() -> None:
    assert latency(C.backchannel, [(4300, 4700)], W).ms == 300
    assert latency(C.backchannel, [(3500, 4200)], W).ms == 0
    assert latency(C.backchannel, [], W).ms is None


@pytest.mark.parametrize("category", [C.keep_talking, C.stay_silent])
def test_keep_talking_and_stay_silent_report_no_latency(category: Category) -> None:
    lat = latency(category, [(1000, 9000)], W)
    assert (lat.ms, lat.note) == (None, "not_defined")


def test_percentiles_interpolate_like_numpy() -> None:
    import numpy as np

    vals = [100, 400, 250, 900, 300]
    assert percentile(vals, 50) == float(np.percentile(vals, 50))
    assert percentile(vals, 90) == pytest.approx(float(np.percentile(vals, 90)))
    assert percentile([], 50) is None
