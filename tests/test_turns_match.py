"""The turns matcher, one test per rule of TurnBench's event-anchored scoring (exact counts)."""

from __future__ import annotations

from floorbench.suites.turns.match import Anchor, Span, TaskCounts, match_task
from floorbench.suites.turns.rules import TurnsRules

U = 1


def match(pos: list[int], neg: list[tuple[int, int]], dec: list[int], excl: list[tuple[int, int]] | None = None) -> TaskCounts:
    return match_task(
        [Anchor(U, t) for t in pos],
        [Span(U, a, b) for a, b in neg],
        {U: dec},
        [Span(U, a, b) for a, b in excl or []],
    )


def counts(c: TaskCounts) -> tuple[int, int, int, int, list[int]]:
    return c.tp, c.fn, c.fp, c.tn, c.latencies_ms


def test_defaults_are_the_suite_rules() -> None:
    r = TurnsRules()
    assert (r.early_tolerance_ms, r.latency_deadline_ms) == (250, 3000)


def test_early_tolerance_is_250_ms_inclusive() -> None:
    assert counts(match([10_000], [], [9_750])) == (1, 0, 0, 0, [-250])
    assert counts(match([10_000], [], [9_749])) == (0, 1, 0, 0, [])


def test_deadline_is_3000_ms_inclusive() -> None:
    assert counts(match([10_000], [], [13_000])) == (1, 0, 0, 0, [3000])
    assert counts(match([10_000], [], [13_001])) == (0, 1, 0, 0, [])


def test_window_is_clamped_at_the_next_event_of_the_same_speaker() -> None:
    # events 1 000 ms apart: a decision 1 500 ms after the first belongs to the second
    c = match([10_000, 11_000], [], [11_500])
    assert counts(c) == (1, 1, 0, 0, [500]) and c.claimed == [None, 11_500]
    # exactly at the next event: the first event's window still reaches it (inclusive)
    c = match([10_000, 11_000], [], [11_000])
    assert c.claimed == [11_000, None]


def test_the_other_speakers_events_do_not_clamp() -> None:
    c = match_task([Anchor(1, 10_000), Anchor(2, 10_500)], [], {1: [11_500], 2: []})
    assert c.claimed == [11_500, None] and (c.tp, c.fn) == (1, 1)


def test_matching_is_one_to_one_earliest_first() -> None:
    # a burst in one window is one detection, and the earliest decision is the one claimed
    assert counts(match([10_000], [], [10_300, 10_400, 10_500])) == (1, 0, 0, 0, [300])
    # one decision cannot satisfy two events
    # (the second event's early tolerance reaches back over the decision the first one claimed)
    c = match([10_000, 10_100], [], [10_050])
    assert counts(c) == (1, 1, 0, 0, [50]) and c.claimed == [10_050, None]


def test_one_false_positive_per_negative_span() -> None:
    c = match([], [(5_000, 6_000)], [5_100, 5_300, 5_900])
    assert counts(c) == (0, 0, 1, 0, []) and c.fired == [True]
    assert counts(match([], [(5_000, 6_000), (8_000, 9_000)], [])) == (0, 0, 0, 2, [])


def test_negative_span_starts_250_ms_early_and_ends_at_its_end() -> None:
    assert match([], [(5_000, 6_000)], [4_750]).fired == [True]
    assert match([], [(5_000, 6_000)], [4_749]).fired == [False]
    assert match([], [(5_000, 6_000)], [6_000]).fired == [True]
    assert match([], [(5_000, 6_000)], [6_001]).fired == [False]


def test_decisions_inside_a_positive_window_are_never_false_positives() -> None:
    # a pause ends where a real end of turn's early tolerance begins: the claimed decision is exempt
    c = match([6_100], [(5_000, 6_000)], [5_900])
    assert counts(c) == (1, 0, 0, 1, [-200])
    # an unclaimed second decision inside the positive window is exempt too
    c = match([6_100], [(5_000, 6_000)], [5_880, 5_950])
    assert counts(c) == (1, 0, 0, 1, [-220])


def test_excluded_regions_drop_decisions_both_ways() -> None:
    # the only decision lies in an excluded region: the event is missed, the span does not fire
    c = match([10_000], [(12_000, 13_000)], [10_200, 12_500], excl=[(10_100, 10_300), (12_400, 12_600)])
    assert counts(c) == (0, 1, 0, 1, [])
    # excluded regions of another speaker do not apply
    c = match_task([Anchor(1, 10_000)], [], {1: [10_200]}, [Span(2, 10_000, 11_000)])
    assert (c.tp, c.fn) == (1, 0)


def test_rates_and_percentiles() -> None:
    c = match([1_000, 5_000, 9_000, 13_000], [(20_000, 21_000), (22_000, 23_000)], [1_100, 5_300, 9_500, 20_500])
    assert (c.recall, c.fp_rate) == (0.75, 0.5)
    assert c.latency_percentiles() == {"p10": 140.0, "p50": 300.0, "p90": 460.0}
    empty = match([], [], [])
    assert (empty.recall, empty.fp_rate, empty.latency_percentiles()["p50"]) == (None, None, None)


def test_merge_adds_counts_and_latencies() -> None:
    a, b = match([1_000], [], [1_200]), match([1_000], [(5_000, 6_000)], [5_500])
    a.merge(b)
    assert counts(a) == (1, 1, 1, 0, [200])
