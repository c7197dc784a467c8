"""Suite mpe's dialogue timeline in the HTML report: its turns coloured by label, the model's speech, its items.

One SVG per dialogue (four lanes: the humans' turns, the model's envelope and VAD segments, the Silero
probability, and one row of windows per metric), so a failed item can be read against what was said and
heard. Every text goes through the engine's `esc`.
"""

from __future__ import annotations

from collections.abc import Sequence

from floorbench.records import DialogueTurn
from floorbench.report.load import Curve
from floorbench.report.svg import esc
from floorbench.suites.mpe.items import Item, Kind, Metric

LABEL_COLORS = {
    "T": "#1f77b4", "N1": "#9467bd", "N2": "#8c564b", "N3": "#7f7f7f", "N4Q": "#ff7f0e", "N4R": "#2ca02c",
}
"""a turn's fill by its mpe label (docs/suites/mpe.md)"""


def timeline(
    turns: Sequence[DialogueTurn],
    segments: Sequence[tuple[int, int]],
    items: Sequence[Item],
    duration_ms: int,
    curve: Curve | None = None,
) -> str:
    """One dialogue: human turns by label, model speech (envelope + VAD segments), VAD probability, items.

    Without a stored `curve` the envelope and the probability line are left out.
    """
    w, left = 960, 70
    lanes = ["humans", "model speech", "VAD", "items"]
    lane_h, top = 26, 8
    metric_order = [m.value for m in Metric]
    row_h = 6
    h = top + lane_h * 3 + row_h * len(metric_order) + 30
    t_end = max(duration_ms, max((t.end_ms for t in turns), default=0), 1)

    def x(t: float) -> float:
        return left + (w - left - 10) * t / t_end

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" class="timeline">']
    for li, name in enumerate(lanes):
        out.append(f'<text x="4" y="{top + li * lane_h + 17}" class="ax">{esc(name)}</text>')
    step = 5000 if t_end <= 120_000 else max(30_000, -(-t_end // 40 // 30_000) * 30_000)  # at most ~40 ticks
    for t in range(0, t_end + 1, step):
        out.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top}" y2="{h - 20}" class="grid"/>')
        out.append(f'<text x="{x(t):.1f}" y="{h - 6}" class="ax" text-anchor="middle">{t // 1000}s</text>')
    y0 = top + 3
    for t in turns:
        color = LABEL_COLORS.get(t.label, "#999")
        tip = f"turn {t.turn_id} {t.label} ({t.speaker}) {t.start_ms}–{t.end_ms} ms: {t.text}"
        out.append(
            f'<rect x="{x(t.start_ms):.1f}" y="{y0}" width="{max(1.0, x(t.end_ms) - x(t.start_ms)):.1f}" '
            f'height="{lane_h - 6}" fill="{color}" rx="2"><title>{esc(tip)}</title></rect>'
            f'<text x="{x(t.start_ms) + 2:.1f}" y="{y0 + 14}" class="lbl">{esc(t.label)}</text>'
        )
    y1 = top + lane_h + 3
    if curve is not None and curve.envelope:
        peak = max(curve.envelope) or 1.0
        pts = " ".join(
            f"{x(i * curve.step_ms):.1f},{y1 + (lane_h - 6) * (1 - v / peak):.1f}" for i, v in enumerate(curve.envelope)
        )
        out.append(f'<polyline points="{pts}" class="env"/>')
    for s, e in segments:
        out.append(
            f'<rect x="{x(s):.1f}" y="{y1 + lane_h - 10}" width="{max(1.0, x(e) - x(s)):.1f}" height="4" '
            f'class="seg"><title>model speech {s}–{e} ms</title></rect>'
        )
    y2 = top + 2 * lane_h + 3
    if curve is not None and curve.probability:
        pts = " ".join(
            f"{x(i * curve.step_ms):.1f},{y2 + (lane_h - 6) * (1 - p):.1f}" for i, p in enumerate(curve.probability)
        )
        out.append(f'<polyline points="{pts}" class="prob"/>')
        out.append(
            f'<line x1="{left}" x2="{w - 10}" y1="{y2 + (lane_h - 6) * 0.5:.1f}" '
            f'y2="{y2 + (lane_h - 6) * 0.5:.1f}" class="thr"/>'
        )
    y3 = top + 3 * lane_h + 3
    for it in items:
        unscorable = it.kind in (Kind.unscorable, Kind.unsure)  # drawn grey: in no denominator
        if not it.counted and not unscorable:
            continue
        cls = "unscorable" if unscorable else "pass" if it.passed else "fail"
        tip = f"{it.metric.value} · {it.kind.value}: {it.reason}"
        if it.transcript:
            tip += f" — transcript: {it.transcript}"
        yi = y3 + row_h * metric_order.index(it.metric.value)
        out.append(
            f'<rect x="{x(it.window_start_ms):.1f}" y="{yi}" '
            f'width="{max(2.0, x(it.window_end_ms) - x(it.window_start_ms)):.1f}" height="{row_h - 1}" '
            f'class="{cls}"><title>{esc(tip)}</title></rect>'
        )
    out.append("</svg>")
    return "".join(out)
