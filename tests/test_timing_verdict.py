"""The timing verdict on synthetic figures: each bound at its limit passes, just over it fails."""

from __future__ import annotations

import pytest

from floorbench.audio.alignment import TurnLag
from floorbench.pipelines.run.timing_verdict import (
    BOUNDS,
    figures_of,
    receive_delays_ms,
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
