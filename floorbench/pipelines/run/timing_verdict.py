"""Every scenario checks its own timing: `ok` or `degraded`, with the figures and the bounds.

The recorder already measures where each human turn landed (turn_mapping): a
room that is overloaded shows it as large onset errors, drift, playback
underruns, turns that cannot be found in the recording, or an absurd transport
latency — and still ends `completed`. The verdict makes that visible in
``meta.json`` so a fast or busy run can be trusted without re-measuring, and
`floorbench score --exclude-degraded` can leave such scenarios out.

Pure functions on figures; the bounds live once, in `records.TimingBounds`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

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
