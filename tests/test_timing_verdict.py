"""The timing verdict on synthetic figures: each bound at its limit passes, just over it fails."""

from __future__ import annotations

import pytest

from floorbench.audio.alignment import TurnLag
from floorbench.pipelines.run.timing_verdict import (
    BOUNDS,
    figures_of,
    receive_delays_ms,
    sender_verdict,
    timing_verdict,
    unmeasured,
)
from floorbench.pipelines.run.turn_mapping import TransportLatency
from floorbench.records import EventKind, RunMeta, TimelineEvent, TimingBounds, TimingFigures


def good(**over: object) -> TimingFigures:
    """Figures well inside every bound, with `over` replaced."""
    base: dict[str, object] = {
        "onset_error_p99_us": 230,
        "drift_us_per_100s": 100,
        "underruns": 0,
        "turns_measured": 8,
        "turns_not_found": 0,
        "transport_latency_p95_ms": 60,
    }
    return TimingFigures.model_validate(base | over)


def test_the_bounds_are_the_documented_ones() -> None:
    assert BOUNDS == TimingBounds(
        onset_error_p99_max_us=10_000,
        drift_max_us_per_100s=5_000,
        underruns_max=0,
        turns_not_found_max=0,
        transport_latency_p95_max_ms=1_000,
        receive_delay_max_ms=250,
        heard_uncertain_max_us=10_000,
        model_slips_max=0,
        stretch_max_us=10_000,
    )
    name = "onset_error_p99_max_us"
    with pytest.raises(ValueError, match="frozen"):  # the bounds live once
        setattr(BOUNDS, name, 1)


def test_quiet_figures_are_ok_with_no_reasons() -> None:
    v = timing_verdict(good())
    assert (v.verdict, v.reasons) == ("ok", [])
    assert v.bounds == BOUNDS and v.figures == good()


@pytest.mark.parametrize(
    ("field", "at_limit", "over", "reason"),
    [
        ("onset_error_p99_us", 10_000, 10_001, "onset error p99 10001 µs > 10000 µs"),
        ("drift_us_per_100s", 5_000, 5_001, "drift 5001 µs/100 s beyond ±5000 µs/100 s"),
        ("drift_us_per_100s", -5_000, -5_001, "drift -5001 µs/100 s beyond ±5000 µs/100 s"),
        ("underruns", 0, 1, "1 playback underrun(s) > 0"),
        ("turns_not_found", 0, 1, "1 turn(s) not found in the recording > 0"),
        ("transport_latency_p95_ms", 1_000, 1_001, "transport latency p95 1001 ms > 1000 ms"),
    ],
)
def test_each_bound_passes_at_its_limit_and_fails_just_over(field: str, at_limit: int, over: int, reason: str) -> None:
    assert timing_verdict(good(**{field: at_limit})).verdict == "ok"
    v = timing_verdict(good(**{field: over}))
    assert (v.verdict, v.reasons) == ("degraded", [reason])


def test_every_broken_bound_is_named() -> None:
    v = timing_verdict(good(onset_error_p99_us=62_000, underruns=2597, turns_not_found=3))
    assert v.verdict == "degraded"
    assert v.reasons == [
        "onset error p99 62000 µs > 10000 µs",
        "2597 playback underrun(s) > 0",
        "3 turn(s) not found in the recording > 0",
    ]


def test_no_turn_found_is_degraded_not_ok() -> None:
    v = timing_verdict(
        good(onset_error_p99_us=None, drift_us_per_100s=None, transport_latency_p95_ms=None, turns_not_found=8)
    )
    assert v.verdict == "degraded"
    assert v.reasons[0] == "no turn found in the recording: timing not measured"
    assert timing_verdict(good(turns_measured=0, onset_error_p99_us=None)).verdict == "degraded"


def test_a_drift_too_short_to_measure_is_not_a_failure() -> None:
    assert timing_verdict(good(drift_us_per_100s=None)).verdict == "ok"


def test_unmeasured_underruns_are_degraded() -> None:
    v = timing_verdict(good(underruns=None))
    assert (v.verdict, v.reasons) == ("degraded", ["playback underruns not measured"])


def test_unmeasured_is_degraded_with_the_reason() -> None:
    v = unmeasured("no turn was played")
    assert (v.verdict, v.reasons) == ("degraded", ["timing not measured: no turn was played"])


def test_figures_from_a_measured_latency() -> None:
    """Lags at 16 kHz: latencies 50, 52, 51, 80 ms (median 51.5): |errors| 1.5, 0.5, 0.5, 28.5 ms; turn 5 not found."""
    sr = 16_000
    lat_ms = {1: 50, 2: 52, 3: 51, 4: 80}
    lags = [TurnLag(t, 0, ms * sr // 1000, 0.9) for t, ms in lat_ms.items()] + [TurnLag(5, 0, 0, 0.1)]
    expected = dict.fromkeys(range(1, 6), 0)
    entry_ns = {t: t * 2_000_000_000 for t in range(1, 6)}
    figs = figures_of(TransportLatency(lags, expected, entry_ns, sr, 1.0), underruns=3)
    # p99 of [1.5, 0.5, 0.5, 28.5] ms by linear interpolation: 28.5 - 0.03 * (28.5 - 1.5) = 27.69 ms
    assert figs.onset_error_p99_us == 27_690
    assert (figs.underruns, figs.turns_measured, figs.turns_not_found) == (3, 5, 1)
    assert figs.transport_latency_p95_ms == 75
    # least-squares slope of (2, 4, 6, 8) s against (50, 52, 51, 80) ms: 89 / 20 = 4.45 ms/s
    assert figs.drift_us_per_100s == 445_000
    v = timing_verdict(figs)
    assert v.verdict == "degraded" and len(v.reasons) == 4


def test_meta_json_carries_the_verdict_round_trip() -> None:
    from floorbench.records import ClockAnchor

    meta = RunMeta(
        floorbench_version="0", scenario_id="s", pair_id="p", condition="explicit", suite="tiny", room="r",
        created_wall_ns=0, anchor=ClockAnchor(monotonic_ns=0, wall_ns=0), timing=timing_verdict(good()),
    )
    back = RunMeta.model_validate_json(meta.model_dump_json())
    assert back.timing == meta.timing and back.attempt == 1


def transport(track: str, stats: dict[str, float]) -> TimelineEvent:
    return TimelineEvent.of(30_000, EventKind.transport, "recorder", reason=f"inbound_rtp:{track}", stats=stats)


def test_receive_delay_is_the_mean_jitter_buffer_delay_of_each_track_with_stats() -> None:
    events = [
        # as recorded: a quiet machine's humans track, and a model track on a starved receiver (2 cores, busy)
        transport("humans", {"jitter_buffer_delay_s": 55123.2, "jitter_buffer_emitted_count": 1340160}),
        transport("model", {"jitter_buffer_delay_s": 806428.8, "jitter_buffer_emitted_count": 1353600}),
        transport("other", {}),  # stats unavailable: absent, not zero
        TimelineEvent.of(1, EventKind.transport, "recorder", reason="stats unavailable for x: TimeoutError"),
    ]
    assert receive_delays_ms(events) == {"humans": 41, "model": 596}


def test_a_track_heard_late_degrades_the_scenario_at_its_bound() -> None:
    assert timing_verdict(good(receive_delay_ms={"humans": 41, "model": 250})).verdict == "ok"
    v = timing_verdict(good(receive_delay_ms={"humans": 41, "model": 596}))
    assert (v.verdict, v.reasons) == ("degraded", ["model track heard 596 ms late on average (receive delay > 250 ms)"])


# -- the sender-timed verdict: what can change a score ------------------------------------------------

SENDERS = {"humans": "sender", "model": "sender"}


def sent(**over: object) -> TimingFigures:
    """Sender-timed figures of a quiet room, with `over` replaced."""
    base: dict[str, object] = {
        "underruns": 0, "turns_measured": 6, "turns_not_found": 0, "transport_latency_p95_ms": 45,
        "model_slips": 0, "model_slipped_ms": 0.0, "heard_turns": 6, "heard_spread_us": 62, "heard_spread_turn": 1,
        "heard_latency_p95_ms": 48, "model_onsets": 3, "model_onsets_not_found": 0,
    }
    return TimingFigures.model_validate(base | over)


def test_a_quiet_sender_timed_room_is_ok_and_names_its_clocks() -> None:
    v = sender_verdict(sent(), SENDERS)
    assert (v.verdict, v.reasons, v.clocks) == ("ok", [], SENDERS)


def test_the_recorders_own_jitter_no_longer_degrades_a_sender_timed_room() -> None:
    """What degraded every room at four on two cores — onset errors and drift in the recorder's copy, a slow
    receive — changes no score once both tracks are timed at their senders."""
    figures = sent(onset_error_p99_us=14_253, drift_us_per_100s=61_843, receive_delay_ms={"model": 600})
    assert sender_verdict(figures, SENDERS).verdict == "ok"
    assert timing_verdict(figures).verdict == "degraded"  # the receiver-clock verdict, kept for comparison


@pytest.mark.parametrize(
    ("over", "reason"),
    [
        ({"underruns": 2}, "humans: the playback's source ran dry 2 time(s) > 0 (a sender slipped)"),
        ({"underruns": None}, "humans: playback underruns not measured"),
        ({"model_slips": 1, "model_slipped_ms": 48.5},
         "model: its source ran dry 1 time(s) inside its speech (48.5 ms in all) > 0 (a sender slipped)"),
        ({"heard_uncertain_us": 10_001},
         "model: its hearing moved 10001 µs around the start of a reply, at a moment it cannot be placed before "
         "or after > 10000 µs (that reply's time is that unsure)"),
        ({"heard_latency_p95_ms": 1_001}, "model: heard the humans 1001 ms late (p95) > 1000 ms"),
        ({"evidence_missing": ["no model.heard.wav/.tsv: when the model heard each turn is unknown"]},
         "evidence missing: no model.heard.wav/.tsv: when the model heard each turn is unknown"),
        ({"turns_measured": 0}, "no turn was played: timing not measured"),
    ],
)
def test_each_sender_rule_names_the_track_and_the_cause(over: dict[str, object], reason: str) -> None:
    v = sender_verdict(sent(**over), SENDERS)
    assert (v.verdict, v.reasons) == ("degraded", [reason])


def test_the_hearings_uncertainty_passes_at_its_bound() -> None:
    assert sender_verdict(sent(heard_uncertain_us=10_000), SENDERS).verdict == "ok"


def test_a_turn_the_model_heard_late_is_taken_out_of_its_reply_not_a_reason() -> None:
    """The model's jitter buffer heard one turn 68 ms off the others: its reply left that much later, and the
    timing clock takes it off the reply (`heard_correction_max_us`), so no score moves."""
    figures = sent(heard_spread_us=68_062, heard_spread_turn=2, heard_correction_max_us=68_062, heard_uncertain_us=0)
    assert sender_verdict(figures, SENDERS).verdict == "ok"


def test_a_receiver_timed_track_is_judged_by_its_jitter_buffer() -> None:
    clocks = {"humans": "sender", "model": "recorder"}
    at_bound = sent(model_slips=None, model_onsets=None, receiver_stretch_us={"model": 10_000})
    assert sender_verdict(at_bound, clocks).verdict == "ok"
    over = sent(model_slips=None, model_onsets=None, receiver_stretch_us={"model": 10_001},
                receive_delay_ms={"model": 300})
    v = sender_verdict(over, clocks)
    assert v.reasons == [
        "model: timed by the recorder, whose jitter buffer moved it up to 10001 µs > 10000 µs",
        "model: timed by the recorder, which heard it 300 ms late on average > 250 ms",
    ]


def test_meta_json_keeps_both_verdicts() -> None:
    meta = RunMeta.model_validate(
        {"floorbench_version": "0", "scenario_id": "s", "pair_id": "p", "condition": "explicit", "suite": "x",
         "room": "r", "created_wall_ns": 0, "anchor": {"monotonic_ns": 0, "wall_ns": 0}}
    )
    meta.timing = sender_verdict(sent(), SENDERS)
    meta.timing_receiver = timing_verdict(sent(onset_error_p99_us=14_253))
    back = RunMeta.model_validate_json(meta.model_dump_json())
    assert back.timing is not None and back.timing.clocks == SENDERS
    assert back.timing_receiver is not None and back.timing_receiver.verdict == "degraded"
    old = RunMeta.model_validate_json(meta.model_dump_json(exclude={"timing_receiver", "legs", "receivers"}))
    assert old.timing_receiver is None and old.legs == []
