"""Where each human turn landed in the room: pure arithmetic, no room and no files.

After a scenario the playback's timeline says when each turn was sent (its
``turn_start`` entry: a time on the playback's playout clock and a sample on
its track), ``humans.sent.wav`` holds what left and ``humans.wav`` what the
recorder heard, with the recorded track's fitted start time. From those:

- the *expected* lag of a turn — where it would sit in ``humans.wav`` if
  transport took no time: its timeline entry mapped through the recorded
  track's fit;
- the *found* lag — cross-correlation of sent against received around it;
- transport latency (docs/transport.md) — found minus expected, per turn, with
  its percentiles and drift; the onset error of a turn is its latency minus
  the median;
- every turn on the model's clock (``turns.json``): metrics are reported as
  a listener in the room heard them, and the latency beside them, never
  silently subtracted.

All times are integer ns or samples; only the reported summaries are in ms.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from floorbench.audio.alignment import TurnLag, align_turns, drift_ms_per_100s, percentile_ms
from floorbench.records import DialogueTurn, EventKind, TimelineEvent
from floorbench.scenarios.interface import ScenarioTurn

MS = 1_000_000
NS = 1_000_000_000
FOUND_SCORE = 0.5
"""a turn whose best normalised correlation is below this was not found cleanly"""
SILENT_PEAK = 328
"""a turn whose sent audio never exceeds this (−40 dBFS) has nothing to find (a wordless cue of suite av):
it is placed by its expected lag plus the median latency, and listed as silent, not as not found"""
METHOD = "xcorr per turn: playback sent vs recorder received, from the turn's timeline entry"


def turn_entries(
    events: Iterable[TimelineEvent],
) -> tuple[dict[int, TimelineEvent], dict[int, TimelineEvent]]:
    """The playback's ``turn_start`` and ``turn_end`` entries by turn id (the last one wins)."""
    starts: dict[int, TimelineEvent] = {}
    ends: dict[int, TimelineEvent] = {}
    for e in events:
        if e.turn_id is None:
            continue
        if e.kind == EventKind.turn_start:
            starts[e.turn_id] = e
        elif e.kind == EventKind.turn_end:
            ends[e.turn_id] = e
    return starts, ends


def at_rate(sent_sample: int, ratio: float) -> int:
    """A sent sample index on the recording's sample rate (``ratio`` = recorded rate / sent rate)."""
    return int(sent_sample * ratio)


def expected_lags(
    starts: Mapping[int, TimelineEvent], track_start_ns: int, sr_rec: int, ratio: float
) -> dict[int, int]:
    """Per turn (in id order): recorded index − sent index if transport took no time."""
    expected: dict[int, int] = {}
    for tid, e in sorted(starts.items()):
        if e.sample is None:
            continue
        entry_in_rec = (e.t_ms * MS - track_start_ns) * sr_rec // NS
        expected[tid] = int(entry_in_rec - at_rate(e.sample, ratio))
    return expected


@dataclass(frozen=True)
class TransportLatency:
    """The found lags of one track's turns against where they were expected."""

    lags: list[TurnLag]
    expected: dict[int, int]
    entry_ns: dict[int, int]
    """turn id → its timeline entry (session clock, ns)"""
    sr_rec: int
    ratio: float
    """recorded sample rate / sent sample rate"""
    silent: tuple[int, ...] = ()
    """turns with nothing audible to find (not searched)"""

    @property
    def found(self) -> list[TurnLag]:
        return [lg for lg in self.lags if lg.score >= FOUND_SCORE]

    @property
    def latencies_ns(self) -> list[int]:
        return [(lg.lag - self.expected[lg.turn_id]) * NS // self.sr_rec for lg in self.found]

    @property
    def median_ns(self) -> int:
        lat = self.latencies_ns
        return int(np.median(lat)) if lat else 0

    def summary(self) -> dict[str, Any]:
        """The track's entry in ``meta.json`` ``transport_latency_ms``."""
        lat = self.latencies_ns
        return {
            "method": METHOD,
            "n": len(lat),
            "p50": percentile_ms(lat, 50),
            "p95": percentile_ms(lat, 95),
            "drift_ms_per_100s": drift_ms_per_100s([self.entry_ns[lg.turn_id] for lg in self.found], lat),
            "not_found": [lg.turn_id for lg in self.lags if lg.score < FOUND_SCORE],
            **({"silent": list(self.silent)} if self.silent else {}),
        }

    def onset_errors(self) -> list[dict[str, Any]]:
        """Per found turn: how far its latency strays from the median (the playback's onset error)."""
        med = self.median_ns
        return [
            {"turn_id": lg.turn_id, "error_ms": round((lt - med) / MS, 2), "latency_ms": round(lt / MS, 2)}
            for lg, lt in zip(self.found, self.latencies_ns, strict=True)
        ]

    def lag(self, turn_id: int) -> int:
        """The turn's found lag; if not found cleanly, its expected place plus the median latency."""
        for lg in self.found:
            if lg.turn_id == turn_id:
                return lg.lag
        return self.expected.get(turn_id, 0) + self.median_ns * self.sr_rec // NS


def measure_latency(
    sent: np.ndarray,
    sr_sent: int,
    recorded: np.ndarray,
    sr_rec: int,
    starts: Mapping[int, TimelineEvent],
    track_start_ns: int,
) -> TransportLatency:
    """Cross-correlate every sent turn with the recording, around where it was expected."""
    if sr_sent != sr_rec:
        import soxr

        sent = (soxr.resample(sent.astype(np.float32), sr_sent, sr_rec)).astype(np.int16)
    ratio = sr_rec / sr_sent
    expected = expected_lags(starts, track_start_ns, sr_rec, ratio)
    probes = [(tid, at_rate(starts[tid].sample or 0, ratio), lag) for tid, lag in expected.items()]
    probe_len = 1500 * sr_rec // 1000  # align_turns' probe
    silent = tuple(
        t
        for t, at, _ in probes
        if np.abs(sent[at : at + probe_len].astype(np.int32)).max(initial=0) < SILENT_PEAK
    )
    lags = align_turns(sent, recorded, [p for p in probes if p[0] not in silent], sr_rec)
    entry_ns = {tid: e.t_ms * MS for tid, e in starts.items()}
    return TransportLatency(lags, expected, entry_ns, sr_rec, ratio, silent)


def on_model_clock_ms(sent_sample: int, lag: int, latency: TransportLatency, t0_ns: int) -> int:
    """A sent sample's time in ms on the model track's clock (``t0_ns`` = humans start − model start)."""
    return (t0_ns + (at_rate(sent_sample, latency.ratio) + lag) * NS // latency.sr_rec) // MS


def dialogue_turn(t: ScenarioTurn, start_ms: int, end_ms: int, **extra: Any) -> DialogueTurn:
    """turns.json's record of the scenario turn `t`, placed at `start_ms`..`end_ms` (with `extra` fields beside)."""
    return DialogueTurn(
        turn_id=t.id,
        speaker=t.speaker,
        label=str(t.label),
        start_ms=start_ms,
        end_ms=end_ms,
        text=t.text,
        gold=getattr(t, "gold", None),  # a suite's turns need only id, speaker, label, text, audio
        gold_aliases=list(getattr(t, "gold_aliases", ())),
        **extra,
    )


def dialogue_turns(
    turns: Sequence[ScenarioTurn],
    starts: Mapping[int, TimelineEvent],
    ends: Mapping[int, TimelineEvent],
    latency: TransportLatency,
    t0_ns: int,
) -> list[DialogueTurn]:
    """Every turn that was both started and ended, placed as heard on the model's clock."""
    out: list[DialogueTurn] = []
    for t in turns:
        s, e = starts.get(t.id), ends.get(t.id)
        if s is None or e is None or s.sample is None or e.sample is None:
            continue
        lag = latency.lag(t.id)
        out.append(dialogue_turn(t, on_model_clock_ms(s.sample, lag, latency, t0_ns),
                                 on_model_clock_ms(e.sample, lag, latency, t0_ns)))
    return out
