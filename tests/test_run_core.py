"""Turn mapping and transport latency on synthetic signals: no room, no LiveKit.

The synthetic room: the playback's track starts playing out at ``P0`` on the
session clock, so sample ``s`` of ``humans.sent.wav`` leaves at
``P0 + s / sr``; the recorder's ``humans.wav`` starts at ``REC0``; a turn sent
at sample ``s`` arrives ``D`` later. Every expected number follows by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from floorbench.audio.alignment import TurnLag
from floorbench.pipelines.run.turn_mapping import (
    MS,
    NS,
    TransportLatency,
    dialogue_turns,
    expected_lags,
    measure_latency,
    on_model_clock_ms,
    turn_entries,
)
from floorbench.records import EventKind, TimelineEvent
from floorbench.suites.mpe.schema import Label, Turn

SR = 8000
P0 = 1_200_000_000
REC0 = 1_000_000_000
"""the recorded track's fitted start: 200 ms (1 600 samples) before the playout clock's zero"""
MODEL0 = 900_000_000
TURN_AT = {1: 1 * SR, 2: 4 * SR, 3: 7 * SR, 4: 10 * SR}
"""turn id → its first sample on the sent track"""
DELAY = {1: 400, 2: 480, 3: 560}
"""transport delay per turn in samples (50, 60, 70 ms); turn 4 never arrives"""
BURST = SR // 2


def entry(kind: EventKind, tid: int, sample: int) -> TimelineEvent:
    """The playback's timeline entry: sent `sample` leaves at P0 + sample / SR."""
    return TimelineEvent.of((P0 + sample * NS // SR) // MS, kind, "playback", turn_id=tid, sample=sample)


Room = tuple[np.ndarray, np.ndarray, dict[int, TimelineEvent], dict[int, TimelineEvent]]
"""sent, recorded, the turn_start entries, the turn_end entries"""


def synthetic_room() -> Room:
    rng = np.random.default_rng(7)
    sent = np.zeros(12 * SR, dtype=np.int16)
    rec = np.zeros(13 * SR, dtype=np.int16)
    lead = (P0 - REC0) * SR // NS
    for tid, s in TURN_AT.items():
        burst = (rng.standard_normal(BURST) * 6000).astype(np.int16)
        sent[s : s + BURST] = burst
        if tid in DELAY:
            at = s + lead + DELAY[tid]
            rec[at : at + BURST] = burst
    events = [entry(EventKind.turn_start, t, s) for t, s in TURN_AT.items()]
    events += [entry(EventKind.turn_end, t, s + BURST) for t, s in TURN_AT.items()]
    events.append(TimelineEvent.of(5, EventKind.marker, "runner"))
    return sent, rec, *turn_entries(events)


@pytest.fixture(scope="module")
def room() -> Room:
    return synthetic_room()


@pytest.fixture(scope="module")
def latency(room: Room) -> TransportLatency:
    sent, rec, starts, _ = room
    return measure_latency(sent, SR, rec, SR, starts, REC0)


def test_turn_entries_split_starts_and_ends_by_turn() -> None:
    _, _, starts, ends = synthetic_room()
    assert sorted(starts) == sorted(ends) == [1, 2, 3, 4]
    assert all(e.kind == EventKind.turn_start for e in starts.values())
    assert ends[2].sample == TURN_AT[2] + BURST


def test_expected_lag_is_the_entry_mapped_through_the_track_fit() -> None:
    _, _, starts, _ = synthetic_room()
    # 200 ms between the recorder's start and the playout clock's zero: 1 600 samples
    assert expected_lags(starts, REC0, SR, 1.0) == {1: 1600, 2: 1600, 3: 1600, 4: 1600}
    # at twice the rate the sent samples double too, and so does the lag
    assert expected_lags(starts, REC0, 2 * SR, 2.0) == {1: 3200, 2: 3200, 3: 3200, 4: 3200}


def test_latency_percentiles_drift_and_not_found(latency: TransportLatency) -> None:
    lat = latency
    assert [lg.turn_id for lg in lat.found] == [1, 2, 3]
    assert lat.latencies_ns == [50_000_000, 60_000_000, 70_000_000]
    assert lat.median_ns == 60_000_000
    summary = lat.summary()
    assert list(summary) == ["method", "n", "p50", "p95", "drift_ms_per_100s", "not_found"]
    assert summary["n"] == 3 and summary["p50"] == 60 and summary["p95"] == 69
    assert summary["not_found"] == [4]
    # +10 ms every 3 s
    assert summary["drift_ms_per_100s"] == pytest.approx(333.333, abs=0.01)


def test_onset_errors_are_latency_minus_the_median(latency: TransportLatency) -> None:
    lat = latency
    assert lat.onset_errors() == [
        {"turn_id": 1, "error_ms": -10.0, "latency_ms": 50.0},
        {"turn_id": 2, "error_ms": 0.0, "latency_ms": 60.0},
        {"turn_id": 3, "error_ms": 10.0, "latency_ms": 70.0},
    ]


def test_a_turn_not_found_sits_at_its_expected_place_plus_the_median(latency: TransportLatency) -> None:
    lat = latency
    assert lat.lag(1) == 1600 + 400
    assert lat.lag(4) == 1600 + 480
    assert lat.lag(99) == 480  # no entry at all: only the median


def test_turns_land_on_the_model_clock_as_heard(room: Room, latency: TransportLatency) -> None:
    _, _, starts, ends = room
    lat = latency
    turns = [
        Turn(id=t, speaker="A", label=Label.T if t == 1 else Label.N1, text=f"turn {t}", gold="x" if t == 1 else None)
        for t in (1, 2, 3, 4, 5)
    ]
    out = dialogue_turns(turns, starts, ends, lat, REC0 - MODEL0)
    assert [t.turn_id for t in out] == [1, 2, 3, 4]  # turn 5 was never played
    # turn 1 leaves at P0 + 1 s = 2.2 s, arrives 50 ms later; the model's track starts at 0.9 s
    assert (out[0].start_ms, out[0].end_ms) == (1350, 1850)
    assert (out[2].start_ms, out[2].end_ms) == (7370, 7870)
    # turn 4 was not found: placed with the median latency (60 ms)
    assert out[3].start_ms == (P0 + 10 * NS + 60 * MS - MODEL0) // MS
    assert out[0].gold == "x" and out[0].label == "T"


def test_the_model_clock_mapping_rounds_down_in_integer_ns() -> None:
    lat = TransportLatency([], {}, {}, sr_rec=48000, ratio=3.0)
    # sample 1 at 16 kHz is sample 3 at 48 kHz; lag 1 → sample 4 → 83 333 ns
    assert on_model_clock_ms(1, 1, lat, 0) == 0
    assert on_model_clock_ms(16000, 0, lat, 5 * MS) == 1005


def test_a_low_score_is_not_found_however_close_the_lag() -> None:
    lags = [TurnLag(1, 0, 100, 0.49), TurnLag(2, 0, 116, 0.5)]
    lat = TransportLatency(lags, {1: 100, 2: 100}, {1: 0, 2: 0}, 16000, 1.0)
    assert [lg.turn_id for lg in lat.found] == [2]
    assert lat.latencies_ns == [1_000_000]
    assert lat.summary()["not_found"] == [1]
    assert lat.lag(1) == 100 + 16


def test_sent_at_another_rate_is_resampled_before_the_search(room: Room) -> None:
    sent, rec, starts, _ = room
    import soxr

    sent48 = soxr.resample(sent.astype(np.float32), SR, 3 * SR).astype(np.int16)
    # the timeline's samples are on the sent track: at 48 kHz they are three times larger
    starts48 = {t: e.model_copy(update={"sample": (e.sample or 0) * 3}) for t, e in starts.items()}
    lat = measure_latency(sent48, 3 * SR, rec, SR, starts48, REC0)
    assert [lg.turn_id for lg in lat.found] == [1, 2, 3]
    for got, want in zip(lat.latencies_ns, (50, 60, 70), strict=True):
        assert abs(got - want * MS) <= MS
