"""Every scenario checks its own timing: `ok` or `degraded`, with the figures and the bounds.

Two verdicts, one deciding (docs/architecture.md, "Timing verdict"):

- **`sender_verdict`** (meta.json ``timing``) judges what can change a score
  once every track floorbench sends is timed at its sender
  (`sender_timing`): a sender that slipped (the playback's or the model's
  source ran dry), a reply whose time stays unsure after the model's own
  hearing is taken out of it (`hearing.Hearing`: the model began it
  while its jitter buffer moved what it heard), evidence that is missing, and
  — for a track only a
  receiver timed (an external agent's) — how far that receiver's jitter
  buffer may have moved it, from its counters. The recorder's own jitter on
  a sender-timed track no longer moves a score, so it no longer degrades one.
- **`timing_verdict`** (meta.json ``timing_receiver``) is the verdict of the
  receiver-clock figures, as before the sender records — onset errors and
  drift of the turns in the recorder's copy, its receive delays — kept beside
  the other for comparison.

A busy machine shows up in either while its scenarios still end `completed`;
`floorbench score --exclude-degraded` leaves the degraded ones out.

Pure functions on figures; the bounds live once, in `records.TimingBounds`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from floorbench.audio.alignment import percentile_ms
from floorbench.pipelines.run.sender_timing import RECORDER, SenderTiming
from floorbench.pipelines.run.turn_mapping import TransportLatency
from floorbench.records import EventKind, TimelineEvent, TimingBounds, TimingFigures, TimingVerdict

OK = "ok"
DEGRADED = "degraded"
BOUNDS = TimingBounds()
"""the bounds every run uses (docs/architecture.md, "Timing verdict")"""


def receive_delays_ms(events: Iterable[TimelineEvent]) -> dict[str, int]:
    """Per track, the recorder's mean jitter-buffer delay from its end-of-scenario ``transport`` entries."""
    out: dict[str, int] = {}
    for e in events:
        if e.kind != EventKind.transport or not (e.reason or "").startswith("inbound_rtp:"):
            continue
        stats = getattr(e, "stats", None) or {}
        delay_s, emitted = stats.get("jitter_buffer_delay_s"), stats.get("jitter_buffer_emitted_count")
        if isinstance(delay_s, int | float) and isinstance(emitted, int | float) and emitted > 0:
            out[(e.reason or "").split(":", 1)[1]] = round(1000 * delay_s / emitted)
    return out


def figures_of(
    latency: TransportLatency, underruns: int, receive_delay_ms: dict[str, int] | None = None
) -> TimingFigures:
    """The figures of one scenario from its measured transport latency, the playback's underruns and the
    recorder's receive delays."""
    med = latency.median_ns
    errors_ns = [abs(lt - med) for lt in latency.latencies_ns]
    summary = latency.summary()
    drift = summary["drift_ms_per_100s"]
    return TimingFigures(
        onset_error_p99_us=round(float(np.percentile(np.array(errors_ns, dtype=np.int64), 99)) / 1000) if errors_ns else None,
        drift_us_per_100s=None if drift is None else round(float(drift) * 1000),
        underruns=int(underruns),
        turns_measured=len(latency.lags),
        turns_not_found=len(summary["not_found"]),
        transport_latency_p95_ms=int(summary["p95"]) if errors_ns else None,
        receive_delay_ms=dict(receive_delay_ms or {}),
    )


def timing_verdict(figures: TimingFigures, bounds: TimingBounds = BOUNDS) -> TimingVerdict:
    """`ok` when every measured figure is within its bound (a figure at its bound passes)."""
    reasons: list[str] = []
    f, b = figures, bounds
    if f.turns_measured == 0 or f.turns_measured == f.turns_not_found:
        reasons.append("no turn found in the recording: timing not measured")
    if f.onset_error_p99_us is not None and f.onset_error_p99_us > b.onset_error_p99_max_us:
        reasons.append(f"onset error p99 {f.onset_error_p99_us} µs > {b.onset_error_p99_max_us} µs")
    if f.drift_us_per_100s is not None and abs(f.drift_us_per_100s) > b.drift_max_us_per_100s:
        reasons.append(f"drift {f.drift_us_per_100s} µs/100 s beyond ±{b.drift_max_us_per_100s} µs/100 s")
    if f.underruns is None:
        reasons.append("playback underruns not measured")
    elif f.underruns > b.underruns_max:
        reasons.append(f"{f.underruns} playback underrun(s) > {b.underruns_max}")
    if f.turns_not_found > b.turns_not_found_max:
        reasons.append(f"{f.turns_not_found} turn(s) not found in the recording > {b.turns_not_found_max}")
    lat = f.transport_latency_p95_ms
    if lat is not None and lat > b.transport_latency_p95_max_ms:
        reasons.append(f"transport latency p95 {lat} ms > {b.transport_latency_p95_max_ms} ms")
    for track, delay in sorted(f.receive_delay_ms.items()):
        if delay > b.receive_delay_max_ms:
            reasons.append(f"{track} track heard {delay} ms late on average (receive delay > {b.receive_delay_max_ms} ms)")
    return TimingVerdict(verdict=DEGRADED if reasons else OK, reasons=reasons, figures=f, bounds=b)


def unmeasured(reason: str, bounds: TimingBounds = BOUNDS) -> TimingVerdict:
    """The verdict of a scenario whose timing could not be measured: degraded, never silently ok."""
    return TimingVerdict(verdict=DEGRADED, reasons=[f"timing not measured: {reason}"], bounds=bounds)


def sender_figures(
    timing: SenderTiming,
    underruns: int | None,
    receivers: dict[str, dict[str, object]] | None = None,
    receive_delay_ms: dict[str, int] | None = None,
) -> TimingFigures:
    """The figures of the sender-timed verdict: slips, the model's hearing, missing evidence, and the jitter
    buffers of the tracks only a receiver timed."""
    clocks = timing.clocks.record()
    receiver_timed = [track for track, clock in clocks.items() if clock == RECORDER]
    stretch = {}
    for track in receiver_timed:
        value = (receivers or {}).get(track, {}).get("stretch_us")
        if isinstance(value, int):
            stretch[track] = value
    missing = list(timing.evidence_missing)
    for track in receiver_timed:
        if track not in stretch:
            missing.append(f"no jitter-buffer counters for the {track} track: how far its recording moved is unknown")
    heard = timing.humans_to_model
    spread_turn, spread = heard.spread_ns() if heard is not None else (None, None)
    replies = timing.replies_heard()
    leg = timing.model
    to_room = timing.humans_to_room
    return TimingFigures(
        underruns=underruns,
        turns_measured=len(to_room.latency_ns) + len(to_room.not_found),
        turns_not_found=len(to_room.not_found),
        transport_latency_p95_ms=percentile_ms(list(to_room.latency_ns.values()), 95) if to_room.latency_ns else None,
        receive_delay_ms={k: v for k, v in (receive_delay_ms or {}).items() if k in receiver_timed},
        model_slips=len(leg.slips) if leg is not None else None,
        model_slipped_ms=round(sum(g for _, g in leg.slips) / 1e6, 1) if leg is not None else None,
        heard_turns=len(heard.latency_ns) if heard is not None else 0,
        heard_spread_us=None if spread is None else spread // 1000,
        heard_spread_turn=spread_turn,
        heard_correction_max_us=max(abs(h.excess_ns) for _, h in replies) // 1000 if replies else None,
        heard_uncertain_us=max(h.uncertain_ns for _, h in replies) // 1000 if replies else None,
        heard_latency_p95_ms=percentile_ms(list(heard.latency_ns.values()), 95) if heard and heard.latency_ns else None,
        model_onsets=leg.onsets_sent if leg is not None else None,
        model_onsets_not_found=(leg.onsets_sent - len(leg.onsets_found)) if leg is not None else 0,
        receiver_stretch_us=stretch,
        evidence_missing=missing,
    )


def sender_verdict(figures: TimingFigures, clocks: dict[str, str], bounds: TimingBounds = BOUNDS) -> TimingVerdict:
    """`ok` unless something that can change a score went wrong; each reason names the track and the cause."""
    f, b = figures, bounds
    reasons: list[str] = []
    if f.turns_measured == 0:
        reasons.append("no turn was played: timing not measured")
    if f.underruns is None:
        reasons.append("humans: playback underruns not measured")
    elif f.underruns > b.underruns_max:
        reasons.append(f"humans: the playback's source ran dry {f.underruns} time(s) > {b.underruns_max} (a sender slipped)")
    if f.model_slips is not None and f.model_slips > b.model_slips_max:
        reasons.append(
            f"model: its source ran dry {f.model_slips} time(s) inside its speech ({f.model_slipped_ms} ms in all) "
            f"> {b.model_slips_max} (a sender slipped)"
        )
    if f.heard_uncertain_us is not None and f.heard_uncertain_us > b.heard_uncertain_max_us:
        reasons.append(
            f"model: its hearing moved {f.heard_uncertain_us} µs around the start of a reply, at a moment it cannot "
            f"be placed before or after > {b.heard_uncertain_max_us} µs (that reply's time is that unsure)"
        )
    lat = f.heard_latency_p95_ms
    if lat is not None and lat > b.transport_latency_p95_max_ms:
        reasons.append(f"model: heard the humans {lat} ms late (p95) > {b.transport_latency_p95_max_ms} ms")
    for what in f.evidence_missing:
        reasons.append(f"evidence missing: {what}")
    receiver_timed = {track for track, clock in clocks.items() if clock == RECORDER}
    for track, stretch in sorted(f.receiver_stretch_us.items()):
        if track in receiver_timed and stretch > b.stretch_max_us:
            reasons.append(
                f"{track}: timed by the recorder, whose jitter buffer moved it up to {stretch} µs > {b.stretch_max_us} µs"
            )
    for track, delay in sorted(f.receive_delay_ms.items()):
        if track in receiver_timed and delay > b.receive_delay_max_ms:
            reasons.append(
                f"{track}: timed by the recorder, which heard it {delay} ms late on average > {b.receive_delay_max_ms} ms"
            )
    return TimingVerdict(verdict=DEGRADED if reasons else OK, reasons=reasons, figures=f, bounds=b, clocks=clocks)

