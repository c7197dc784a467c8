"""What `silent` and `eager` must score on suite av, derived from their behaviour and the rules.

Each scenario below has the shape the synthetic generator gives its category
(a pause mid-turn as the window; a request then a cue clip timed to the
model's onset; a question then the hand-over as the window). The expected
values are not written down: they follow from `EXPECTED_TAKEOVER`, `AvRules`
and the eager agent's real replies (rendered with its voice), and the tests
state the reasoning as conditions on those.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from floorbench.suites.av.expected import (
    ClipTiming,
    EagerModel,
    ScenarioTiming,
    by_category,
    eager_from_tts,
    expected_for_suite,
    simulate,
    timing_of,
)
from floorbench.suites.av.rules import DURING_MODEL_SPEECH, EXPECTED_TAKEOVER, AvRules, Category

R = AvRules()
C = Category


def pause_turn(category: Category, pause_ms: int) -> ScenarioTiming:
    """'part one — pause — part two' in one clip; the pause is the window."""
    return ScenarioTiming(
        category,
        (ClipTiming(3000 + pause_ms + 2000, ((0, 3000), (3000 + pause_ms, 5000 + pause_ms))),),
        0,
        (3000, 3000 + pause_ms),
    )


def during_speech(category: Category, offset_ms: int, cue_ms: int = 2300) -> ScenarioTiming:
    """A request (clip 1), then a cue clip `offset_ms` after the model's onset: 500 ms still, the cue, 600 ms."""
    request = ClipTiming(2000, ((0, 2000),))
    cue = ClipTiming(500 + cue_ms + 600, (), offset_ms=offset_ms)
    return ScenarioTiming(category, (request, cue), 1, (500, 500 + cue_ms))


def handoff() -> ScenarioTiming:
    """A question, then 1.5 s of the hand-over cue; the window runs 1.5 s past the clip."""
    return ScenarioTiming(C.smooth_handoff, (ClipTiming(4500, ((0, 3000),)),), 0, (3000, 6000))


SCENARIOS = {
    C.stay_silent: pause_turn(C.stay_silent, 2200),
    C.backchannel: pause_turn(C.backchannel, 2200),
    C.keep_talking: during_speech(C.keep_talking, 2000),
    C.must_yield: during_speech(C.must_yield, 2000),
    C.smooth_handoff: handoff(),
}


@pytest.fixture(scope="module")
def eager() -> EagerModel:
    from floorbench.processors.reference import DEFAULT_REPLIES, EagerSettings

    return eager_from_tts(DEFAULT_REPLIES, EagerSettings().voice)


@pytest.mark.parametrize("category", list(Category))
def test_silent_is_aligned_exactly_where_no_takeover_is_expected(category: Category) -> None:
    e = simulate(SCENARIOS[category], "silent", R)
    if category in {C.keep_talking, C.must_yield}:  # its cue waits for an onset that never comes
        assert e.unscorable is not None and e.aligned is None and e.unscorable.startswith("cue_not_played")
    else:
        assert e.unscorable is None and e.takeover is False
        assert e.aligned is (EXPECTED_TAKEOVER[category] == 0)


def test_silent_per_category_follows_from_the_rules() -> None:
    got = {c: simulate(s, "silent", R).aligned for c, s in SCENARIOS.items()}
    played = {c for c in Category if not any(d in DURING_MODEL_SPEECH for d in _dynamics(c))}
    assert {c for c, a in got.items() if a is None} == set(Category) - played
    assert {c for c, a in got.items() if a} == {c for c in played if EXPECTED_TAKEOVER[c] == 0}


def _dynamics(category: Category) -> list[str]:
    from floorbench.suites.av.rules import CATEGORY

    return [d for d, c in CATEGORY.items() if c is category]


def test_eager_talks_into_a_pause_long_enough_to_take_the_floor(eager: EagerModel) -> None:
    react = eager.end_silence_ms + eager.pause_ms
    for category in (C.stay_silent, C.backchannel):
        sc = SCENARIOS[category]
        e = simulate(sc, "eager", R, eager)
        in_window = sc.window[1] - sc.window[0] - react  # it starts `react` ms into the pause and talks on
        assert e.takeover is (in_window >= R.takeover_min_ms)
        assert e.aligned is (not e.takeover) and e.aligned is False
    short = simulate(pause_turn(C.backchannel, react + R.takeover_min_ms // 3), "eager", R, eager)
    assert short.takeover is False and short.aligned is True  # too short a pause to hold a full takeover


def test_eager_takes_a_handoff_after_its_reaction_time(eager: EagerModel) -> None:
    e = simulate(SCENARIOS[C.smooth_handoff], "eager", R, eager)
    assert e.aligned is True and e.latency_ms == eager.end_silence_ms + eager.pause_ms


@pytest.mark.parametrize("offset_ms", [1500, 2000, 2500])
def test_eager_never_yields_so_its_during_speech_scores_depend_on_its_reply_length(
    eager: EagerModel, offset_ms: int
) -> None:
    react = eager.end_silence_ms + eager.pause_ms
    reply_ms, _ = eager.replies[0]
    for category in (C.keep_talking, C.must_yield):
        sc = during_speech(category, offset_ms)
        e = simulate(sc, "eager", R, eager)
        onset = 2000 + react
        ws = onset + offset_ms + sc.window[0]
        spoken = max(0, min(onset + reply_ms, ws + sc.window[1] - sc.window[0]) - ws)
        assert e.window is not None and e.window[0] == ws
        if spoken >= R.takeover_min_ms:
            assert e.takeover is True
        if 0 < spoken < R.takeover_min_ms:  # the words decide, which only ASR on a live run can count
            assert e.borderline in ("words", "timing")
        if abs(spoken - R.takeover_min_ms) >= 200 and spoken >= R.takeover_min_ms:
            assert e.borderline is None
        assert e.aligned is (e.takeover == bool(EXPECTED_TAKEOVER[category]))
    keep = simulate(during_speech(C.keep_talking, offset_ms), "eager", R, eager)
    yield_ = simulate(during_speech(C.must_yield, offset_ms), "eager", R, eager)
    assert keep.aligned is not yield_.aligned  # the same speech: right for one category, wrong for the other


def test_unknown_system_is_refused() -> None:
    with pytest.raises(ValueError, match="no behaviour model"):
        simulate(SCENARIOS[C.stay_silent], "oracle", R)


FIXTURE = Path(__file__).parent / "fixtures" / "suites" / "av-tiny"


@pytest.mark.skipif(not (FIXTURE / "scenarios").is_dir(), reason="the av fixture suite is not there yet")
def test_expected_values_on_the_fixture_suite(eager: EagerModel) -> None:
    """The packaged fixture, scenario by scenario: silent's values follow the rules; eager's are computed."""
    import yaml

    from floorbench.suites.av.schema import AvScenario

    scenarios = {
        p.stem: AvScenario.model_validate(yaml.safe_load(p.read_text()))
        for p in sorted((FIXTURE / "scenarios").glob("*.yaml"))
    }
    silent = expected_for_suite(scenarios.values(), FIXTURE, "silent")
    eager_exp = expected_for_suite(scenarios.values(), FIXTURE, "eager", eager)
    assert set(silent) == set(eager_exp) == set(scenarios)
    for sid, sc in scenarios.items():
        timing = timing_of(sc, FIXTURE)
        if sc.event.dynamic in DURING_MODEL_SPEECH:
            assert silent[sid].unscorable is not None, sid
        else:
            assert silent[sid].aligned is (EXPECTED_TAKEOVER[timing.category] == 0), sid
        # eager always speaks after the request, so every cue plays
        assert eager_exp[sid].unscorable is None, sid
    cats = {sid: Category(sc.event.category) for sid, sc in scenarios.items()}
    table = by_category(silent, cats)
    assert sum(r["clips"] for r in table.values()) == len(scenarios)
    assert all(r["unscorable"] == r["clips"] for c, r in table.items() if c in {"keep_talking", "must_yield"})
