"""The timing rules of suite mpe on hand-made speech segments, exact at every boundary."""

from __future__ import annotations

from floorbench.records import DialogueTurn
from floorbench.suites.mpe.items import Kind, Metric
from floorbench.suites.mpe.rules import MpeRules
from floorbench.suites.mpe.timing import Dialogue, response_end, timing_items

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
    assert (presence.counted, presence.passed, presence.kind) == (True, False, Kind.late_onset)
    on_time = items_of(d, [(10000, 12000)])[(2, Metric.response_presence)]
    assert (on_time.passed, on_time.kind) == (True, Kind.responded)


def test_a_late_onset_is_neither_presence_nor_judged_for_accuracy() -> None:
    # an onset 5600 ms after the request end, in the schedule's gap before the next turn
    it = items_of(request_dialogue(), [(10600, 12000)])
    assert it[(2, Metric.fresh_onset_rate)].kind is Kind.late_onset
    presence = it[(2, Metric.response_presence)]
    assert (presence.counted, presence.passed, presence.kind) == (True, False, Kind.late_onset)
    acc = it[(2, Metric.conditional_accuracy)]
    assert (acc.counted, acc.needs_transcript, acc.kind) == (False, False, Kind.late_onset)


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


# --- coverage: an item the recording does not reach is unscorable, never a pass or a fail ---


def test_a_recording_that_ends_before_the_last_turns_leaves_them_unscorable() -> None:
    d = request_dialogue()  # N2 0-2000, T 2500-5000, N3 20000-21000
    cut = Dialogue(d.scenario_id, d.pair_id, d.condition, d.turns, duration_ms=6000)
    it = items_of(cut, [])
    n3 = it[(3, Metric.silence_keeping)]
    assert (n3.counted, n3.passed, n3.kind) == (False, None, Kind.unscorable)
    assert n3.reason == "unscorable: model.wav ends at 6000 ms, before the silence window ends (21500 ms)"
    for m in (Metric.fresh_onset_rate, Metric.response_presence, Metric.conditional_accuracy):
        assert (it[(2, m)].counted, it[(2, m)].kind) == (False, Kind.unscorable), m
    assert "before the onset window closes (10000 ms)" in it[(2, Metric.fresh_onset_rate)].reason
    assert it[(1, Metric.silence_keeping)].kind is Kind.silent  # its window (0-2500) is covered


def test_coverage_boundaries_of_silence_and_request_windows() -> None:
    d = request_dialogue()
    at = {ms: items_of(Dialogue("s1", "p1", "explicit", d.turns, duration_ms=ms), []) for ms in (9999, 10000,
                                                                                              21499, 21500)}
    assert at[9999][(2, Metric.fresh_onset_rate)].kind is Kind.unscorable
    assert at[10000][(2, Metric.fresh_onset_rate)].kind is Kind.no_onset  # the whole 5000 ms window is there
    assert at[21499][(3, Metric.silence_keeping)].kind is Kind.unscorable
    last = at[21500][(3, Metric.silence_keeping)]  # the last turn's end + the 500 ms turn gap
    assert (last.passed, last.kind, last.window_end_ms) == (True, Kind.silent, 21500)


def test_an_observed_onset_decides_the_request_even_if_the_file_ends_early() -> None:
    d = Dialogue("s1", "p1", "explicit", request_dialogue().turns, duration_ms=9000)
    it = items_of(d, [(6000, 6500)])
    assert it[(2, Metric.fresh_onset_rate)].passed is True
    assert it[(2, Metric.response_presence)].passed is True
    acc = it[(2, Metric.conditional_accuracy)]  # its endpoint needs silence to 8500 ms: there
    assert acc.counted and acc.needs_transcript
    cut = items_of(Dialogue("s1", "p1", "explicit", d.turns, duration_ms=8499), [(6000, 6500)])
    acc = cut[(2, Metric.conditional_accuracy)]
    assert (acc.counted, acc.kind) == (False, Kind.unscorable)
    assert acc.reason.endswith("before the response that ran to 6500 ms is closed (8500 ms)")


def test_an_n4r_deadline_past_the_recording_is_not_a_yield() -> None:
    d = n4_dialogue()  # resolution 15000-17000, deadline 17000, next turn 17500
    cut = Dialogue(d.scenario_id, d.pair_id, d.condition, d.turns, duration_ms=16500)
    y = yield_item(cut, [(13000, 16500)])  # the answer runs to the end of the file
    assert (y.counted, y.passed, y.kind) == (False, None, Kind.unscorable)
    assert y.reason == "unscorable: model.wav ends at 16500 ms, before the observation window ends (17500 ms)"
    reached = Dialogue(d.scenario_id, d.pair_id, d.condition, d.turns, duration_ms=17500)
    assert yield_item(reached, [(13000, 16500)]).kind is Kind.yielded
    # speech seen past the deadline decides it even when the observation window is cut
    late = yield_item(Dialogue("s2", "p2", "explicit", d.turns, duration_ms=17200), [(13000, 17200)])
    assert (late.counted, late.kind) == (True, Kind.not_stopped)
    nothing = Dialogue("s2", "p2", "explicit", d.turns, duration_ms=14000)
    assert yield_item(nothing, []).kind is Kind.unscorable  # no onset seen, window cut at 14000 < 15000
    wr = items_of(nothing, [])[(3, Metric.window_response)]
    assert (wr.counted, wr.kind) == (False, Kind.unscorable)
