"""The timing rules of suite mpe on hand-made speech segments, exact at every boundary."""

from __future__ import annotations

from floorbench.records import DialogueTurn
from floorbench.scoring.items import Kind, Metric
from floorbench.scoring.timing import Dialogue, response_end, timing_items
from floorbench.suites.mpe import MpeRules

RULES = MpeRules()


def turn(i: int, label: str, start: int, end: int, gold: str | None = None) -> DialogueTurn:
    return DialogueTurn(turn_id=i, speaker="A", label=label, start_ms=start, end_ms=end, text="", gold=gold)


def request_dialogue(next_start: int = 20000) -> Dialogue:
    return Dialogue(
        "s1", "p1", "explicit",
        [turn(1, "N2", 0, 2000), turn(2, "T", 2500, 5000, gold="x"), turn(3, "N3", next_start, next_start + 1000)],
        duration_ms=next_start + 3000,
    )


def items_of(d: Dialogue, segs: list[tuple[int, int]]) -> dict[tuple[int, Metric], object]:
    return {(i.turn_id, i.metric): i for i in timing_items(d, segs, RULES)}


def test_fresh_onset_at_exactly_5000_ms_passes_and_one_ms_later_fails() -> None:
    d = request_dialogue()
    ok = items_of(d, [(10000, 12000)])[(2, Metric.fresh_onset_rate)]
    late = items_of(d, [(10001, 12000)])[(2, Metric.fresh_onset_rate)]
    assert (ok.passed, ok.kind, ok.onset_ms) == (True, Kind.fresh_onset, 10000)
    assert (late.passed, late.kind) == (False, Kind.late_onset)
    assert "5001 ms later" in late.reason
    presence = items_of(d, [(10001, 12000)])[(2, Metric.response_presence)]
    assert (presence.passed, presence.kind) == (True, Kind.responded)


def test_segment_touching_the_request_end() -> None:
    d = request_dialogue()
    ended = items_of(d, [(3000, 5000), (6000, 7000)])
    assert ended[(2, Metric.fresh_onset_rate)].kind is Kind.fresh_onset
    assert ended[(2, Metric.fresh_onset_rate)].onset_ms == 6000
    starts = items_of(d, [(5000, 7000)])
    assert starts[(2, Metric.fresh_onset_rate)].kind is Kind.fresh_onset
    assert starts[(2, Metric.fresh_onset_rate)].onset_ms == 5000


def test_already_speaking_counts_for_presence_not_fresh_onset() -> None:
    it = items_of(request_dialogue(), [(4000, 9000)])
    fresh = it[(2, Metric.fresh_onset_rate)]
    presence = it[(2, Metric.response_presence)]
    acc = it[(2, Metric.conditional_accuracy)]
    assert (fresh.passed, fresh.kind) == (False, Kind.already_speaking)
    assert (presence.passed, presence.kind) == (True, Kind.continued)
    assert acc.counted and acc.needs_transcript
    assert acc.speech == [(4000, 9000)] and acc.speech_ms == 4000  # only the part inside the window


def test_no_response_is_not_counted_for_accuracy() -> None:
    it = items_of(request_dialogue(), [])
    assert it[(2, Metric.fresh_onset_rate)].kind is Kind.no_onset
    assert it[(2, Metric.response_presence)].passed is False
    acc = it[(2, Metric.conditional_accuracy)]
    assert acc.counted is False and acc.kind is Kind.no_speech


def test_onset_limit_never_runs_past_the_next_turn() -> None:
    # a recording made elsewhere whose next turn starts 3 s after the request
    d = request_dialogue(next_start=8000)
    it = items_of(d, [(8000, 9000)])
    assert it[(2, Metric.response_presence)].passed is False
    assert it[(2, Metric.fresh_onset_rate)].kind is Kind.no_onset


def test_response_end_uses_the_2000_ms_endpoint() -> None:
    segs = [(6000, 7000), (8500, 9000), (11000, 12000)]
    assert response_end(segs, 6000, 30000, 2000) == 9000
    assert response_end(segs, 6000, 11500, 2000) == 9000
    assert response_end([(6000, 7000), (8999, 9500)], 6000, 30000, 2000) == 9500
    it = items_of(request_dialogue(), segs)
    assert it[(2, Metric.fresh_onset_rate)].stop_ms == 9000


def test_silence_window_runs_from_turn_start_to_next_turn_start() -> None:
    d = request_dialogue()
    assert items_of(d, [])[(1, Metric.silence_keeping)].kind is Kind.silent
    ended = items_of(d, [(-500, 0)])[(1, Metric.silence_keeping)]
    assert ended.kind is Kind.silent  # ends exactly at the turn's start
    touching = items_of(d, [(2500, 2600)])[(1, Metric.silence_keeping)]
    assert touching.kind is Kind.silent  # starts exactly at the next turn's start
    inside = items_of(d, [(2400, 2600)])[(1, Metric.silence_keeping)]
    assert inside.needs_transcript and inside.speech_ms == 100 and inside.passed is None
    last = items_of(d, [(22500, 22800)])[(3, Metric.silence_keeping)]
    assert (last.window_end_ms, last.speech_ms) == (23000, 300)  # a last turn's window ends with the recording


def n4_dialogue(r_end: int = 17000, next_start: int = 17500) -> Dialogue:
    return Dialogue(
        "s2", "p2", "explicit",
        [
            turn(1, "N2", 0, 1000),
            turn(2, "T", 1500, 3000, gold="x"),
            turn(3, "N4Q", 10000, 12000),
            turn(4, "N4R", 15000, r_end),
            turn(5, "N3", next_start, next_start + 1000),
        ],
        duration_ms=30000,
    )


def yield_item(d: Dialogue, segs: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    return items_of(d, segs)[(3, Metric.yield_rate)]


def test_n4_qualification() -> None:
    d = n4_dialogue()
    early = yield_item(d, [(11000, 16000)])
    assert (early.counted, early.kind) == (False, Kind.speaking_during_question)
    none = yield_item(d, [(15001, 16000)])
    assert (none.counted, none.kind) == (False, Kind.no_onset_in_window)
    stopped = yield_item(d, [(12500, 14000)])
    assert (stopped.counted, stopped.kind) == (False, Kind.stopped_before_resolution)
    at_edge = yield_item(d, [(12000, 16000)])  # onset exactly at the question end
    assert at_edge.counted and at_edge.onset_ms == 12000
    last_ms = yield_item(d, [(15000, 16000)])  # onset exactly 3000 ms later: not yet speaking at resolution
    assert (last_ms.counted, last_ms.kind) == (False, Kind.stopped_before_resolution)


def test_yield_deadline_is_inclusive_and_fixed() -> None:
    d = n4_dialogue()
    ok = yield_item(d, [(13000, 17000)])
    assert (ok.passed, ok.kind, ok.stop_ms) == (True, Kind.yielded, 17000)
    late = yield_item(d, [(13000, 17001)])
    assert (late.passed, late.kind) == (False, Kind.not_stopped)
    never = yield_item(d, [(13000, 30000)])
    assert never.kind is Kind.not_stopped and "30000" in never.reason


def test_restart_before_the_observation_window_ends_fails() -> None:
    d = n4_dialogue(r_end=17000, next_start=19000)
    restart = yield_item(d, [(13000, 16500), (18000, 18500)])
    assert (restart.passed, restart.kind) == (False, Kind.restarted)
    after = yield_item(d, [(13000, 16500), (19000, 19500)])  # speaks again only once the next turn starts
    assert (after.passed, after.kind) == (True, Kind.yielded)


def test_an_early_resolution_end_does_not_shorten_the_deadline() -> None:
    # resolution ends at 15300, next turn at 15800: deadline (17000) still applies, and the
    # observation window runs to max(deadline, next turn start)
    d = n4_dialogue(r_end=15300, next_start=15800)
    assert yield_item(d, [(13000, 16900)]).passed is True
    restart = yield_item(d, [(13000, 15500), (16400, 16600)])
    assert restart.kind is Kind.restarted and restart.window_end_ms == 17000


def test_window_response_spans_question_start_to_3000_ms_after_its_end() -> None:
    d = n4_dialogue()
    assert items_of(d, [(9000, 10001)])[(3, Metric.window_response)].passed is True
    assert items_of(d, [(9000, 10000)])[(3, Metric.window_response)].passed is False
    assert items_of(d, [(15000, 16000)])[(3, Metric.window_response)].passed is True
    assert items_of(d, [(15001, 16000)])[(3, Metric.window_response)].passed is False


def test_position_quintile_of_the_request() -> None:
    turns = [turn(i, "N2", i * 1000, i * 1000 + 500) for i in range(1, 11)]
    turns[7] = turn(8, "T", 8000, 8500, gold="x")
    d = Dialogue("s3", "p3", "implicit", turns, duration_ms=12000)
    fresh = items_of(d, [])[(8, Metric.fresh_onset_rate)]
    assert (fresh.turn_index, fresh.n_turns, fresh.position_quintile) == (7, 10, 4)
