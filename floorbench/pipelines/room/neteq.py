"""A receiver's jitter buffer (WebRTC's NetEq), read from its inbound-rtp statistics.

NetEq plays a received stream out in real time, and moves its content to do
so: on a busy machine it inserts samples (``inserted_samples_for_deceleration``,
and concealment when it runs dry: ``concealed_samples``) and removes them
(``removed_samples_for_acceleration``). Every sample after an insertion plays
that much later than the one before it would have; after a removal, earlier.
So from the counters, sampled along the scenario, the content's displacement
since the stream began is

    D(t) = Δinserted(t) + Δconcealed(t) − Δremoved(t)       (samples at the codec's clock rate)

and a track timed on this receiver's clock with one constant latency is off
by at most ``max D − min D`` (`stretch_us`) at the sampled moments; between
two samples a stretch and its undoing are not seen, so `moved_us` — all the
samples moved in either direction — is given beside it as the loose bound.
Counts start from the first sample with audio received, so the buffer's
start-up concealment before the first packet does not count. On loopback no
packet is lost, so concealment here is the buffer running dry (loss
concealment replaces content rather than moving it; a lossy network makes
this bound looser, never tighter).

The fields are those of livekit-rtc's ``InboundRtpStreamStats`` proto
(``stats.inbound_rtp.inbound``), read by name; a field an SDK version lacks
is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

INBOUND = (
    "total_samples_received",
    "total_samples_duration",
    "concealed_samples",
    "silent_concealed_samples",
    "concealment_events",
    "inserted_samples_for_deceleration",
    "removed_samples_for_acceleration",
    "jitter_buffer_delay",
    "jitter_buffer_target_delay",
    "jitter_buffer_minimum_delay",
    "jitter_buffer_emitted_count",
    "packets_discarded",
)
RECEIVED = ("packets_received", "packets_lost", "jitter")
DEFAULT_RATE = 48_000
"""Opus: NetEq counts samples at 48 kHz"""


@dataclass(frozen=True)
class NetEqSample:
    """The counters of one track at one moment (session ms)."""

    t_ms: int
    counters: dict[str, float]


def sample_of(stats: Iterable[Any], t_ms: int) -> NetEqSample | None:
    """The inbound-rtp counters in a track's ``get_stats()`` answer; None when it has none."""
    for s in stats:
        try:
            if not s.HasField("inbound_rtp"):
                continue
        except (AttributeError, ValueError):
            continue
        inbound, received = s.inbound_rtp.inbound, s.inbound_rtp.received
        counters: dict[str, float] = {}
        for name in INBOUND:
            if hasattr(inbound, name):
                counters[name] = float(getattr(inbound, name))
        for name in RECEIVED:
            if hasattr(received, name):
                counters[name] = float(getattr(received, name))
        return NetEqSample(t_ms, counters)
    return None


def _rate(c: dict[str, float]) -> float:
    received, duration = c.get("total_samples_received", 0.0), c.get("total_samples_duration", 0.0)
    return received / duration if received > 0 and duration > 0 else float(DEFAULT_RATE)


def _displacement(c: dict[str, float], base: dict[str, float]) -> float:
    def d(k: str) -> float:
        return c.get(k, 0.0) - base.get(k, 0.0)

    return d("inserted_samples_for_deceleration") + d("concealed_samples") - d("removed_samples_for_acceleration")


def summarize(samples: Sequence[NetEqSample]) -> dict[str, Any]:
    """meta.json ``receivers.<track>``: the last counters, the mean delays, and the stretch they bound."""
    if not samples:
        return {"samples": 0}
    last = samples[-1].counters
    rate = _rate(last)
    flowing = [s for s in samples if s.counters.get("total_samples_received", 0.0) > 0]
    out: dict[str, Any] = {
        "samples": len(samples),
        "clock_rate": round(rate),
        **{k: round(v, 6) if k == "jitter" else int(v) for k, v in last.items() if not k.startswith("jitter_buffer")},
    }
    emitted = last.get("jitter_buffer_emitted_count", 0.0)
    if emitted > 0:
        for k in ("jitter_buffer_delay", "jitter_buffer_target_delay", "jitter_buffer_minimum_delay"):
            if k in last:
                out[f"{k}_ms"] = round(1000 * last[k] / emitted, 1)
    if flowing:
        base = flowing[0].counters
        series = [_displacement(s.counters, base) for s in flowing]
        moved = sum(
            last.get(k, 0.0) - base.get(k, 0.0)
            for k in ("inserted_samples_for_deceleration", "concealed_samples", "removed_samples_for_acceleration")
        )
        out["stretch_us"] = round((max(series) - min(series)) * 1e6 / rate)
        out["moved_us"] = round(moved * 1e6 / rate)
        out["displacement_us"] = [[s.t_ms, round(d * 1e6 / rate)] for s, d in zip(flowing, series, strict=True)]
        out["from_ms"] = flowing[0].t_ms
    return out
