"""Inline SVG charts for the HTML report: metric bars with intervals, dialogue timelines.

Every piece of text that reaches the SVG goes through `esc` (transcripts,
turn texts, labels), so a transcript containing markup stays text.
"""

from __future__ import annotations

from collections.abc import Sequence

from floorbench.escape import html_text
from floorbench.records import DialogueTurn
from floorbench.report.load import Curve
from floorbench.scoring.items import Item, Kind, Metric
from floorbench.scoring.metrics import MetricScore

RUN_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d")
LABEL_COLORS = {
    "T": "#1f77b4", "N1": "#9467bd", "N2": "#8c564b", "N3": "#7f7f7f", "N4Q": "#ff7f0e", "N4R": "#2ca02c",
}


def esc(text: object) -> str:
    """HTML-escaped, every control and bidi character shown escaped (floorbench.escape)."""
    return html_text(text)


def bar_chart(title: str, groups: Sequence[str], series: Sequence[str],
              values: dict[tuple[str, str], MetricScore | None]) -> str:
    """Grouped bars (groups = conditions, series = runs) on 0..1 with 95% interval whiskers."""
    w, h, left, top, bottom = 460, 220, 40, 28, 40
    plot_h = h - top - bottom
    gw = (w - left - 10) / max(1, len(groups))
    bw = min(36.0, (gw - 16) / max(1, len(series)))

    def y(v: float) -> float:
        return top + plot_h * (1.0 - max(0.0, min(1.0, v)))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
        f'aria-label="{esc(title)}" class="chart">',
        f'<text x="{left}" y="16" class="ct">{esc(title)}</text>',
    ]
    for v in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line x1="{left}" x2="{w - 10}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>')
        out.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" class="ax" text-anchor="end">{v:.2f}</text>')
    for gi, g in enumerate(groups):
        gx = left + gi * gw + 8
        out.append(
            f'<text x="{gx + bw * len(series) / 2:.1f}" y="{h - 22}" class="ax" text-anchor="middle">{esc(g)}</text>'
        )
        for si, s in enumerate(series):
            x = gx + si * bw
            color = RUN_COLORS[si % len(RUN_COLORS)]
            sc = values.get((g, s))
            if sc is None or sc.n == 0 or sc.value is None:
                out.append(f'<text x="{x + bw / 2:.1f}" y="{y(0) - 4:.1f}" class="ax" text-anchor="middle">n=0</text>')
                continue
            if sc.reportable is False:  # n < 20: no rate is shown, only the count
                out.append(
                    f'<text x="{x + bw / 2:.1f}" y="{y(0) - 16:.1f}" class="ax" text-anchor="middle">n/r'
                    f'<title>{esc(f"{s} · {g}: not reportable, n={sc.n} < 20")}</title></text>'
                    f'<text x="{x + bw / 2:.1f}" y="{y(0) - 4:.1f}" class="ax" text-anchor="middle">n={sc.n}</text>'
                )
                continue
            tip = f"{s} · {g}: {sc.value:.3f}"
            if sc.ci_low is not None:
                tip += f" [{sc.ci_low:.3f}, {sc.ci_high:.3f}]"
            tip += f" n={sc.n}"
            out.append(
                f'<rect x="{x + 2:.1f}" y="{y(sc.value):.1f}" width="{bw - 4:.1f}" '
                f'height="{y(0) - y(sc.value):.1f}" fill="{color}"><title>{esc(tip)}</title></rect>'
            )
            if sc.ci_low is not None and sc.ci_high is not None:
                cx = x + bw / 2
                out.append(
                    f'<path d="M{cx:.1f} {y(sc.ci_low):.1f}V{y(sc.ci_high):.1f}M{cx - 5:.1f} {y(sc.ci_low):.1f}'
                    f'h10M{cx - 5:.1f} {y(sc.ci_high):.1f}h10" class="ci"/>'
                )
            label = f"{sc.value:.2f}"
            top_of_bar = max(sc.value, sc.ci_high if sc.ci_high is not None else sc.value)
            out.append(
                f'<text x="{x + bw / 2:.1f}" y="{max(top - 2, y(top_of_bar) - 4):.1f}" class="val" '
                f'text-anchor="middle">{label}</text>'
            )
    lx = left
    for si, s in enumerate(series):
        out.append(
            f'<rect x="{lx}" y="{h - 12}" width="10" height="10" fill="{RUN_COLORS[si % len(RUN_COLORS)]}"/>'
            f'<text x="{lx + 14}" y="{h - 3}" class="ax">{esc(s)}</text>'
        )
        lx += 18 + 7 * len(s)
    out.append("</svg>")
    return "".join(out)


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
