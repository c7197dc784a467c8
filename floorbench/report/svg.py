"""Inline SVG for the HTML reports: the escaping every drawing uses, metric bars with intervals.

Every piece of text that reaches the SVG goes through `esc` (transcripts,
turn texts, labels), so a transcript containing markup stays text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from floorbench.escape import html_text


class Score(Protocol):
    """What a bar needs of one score (a suite's own score record, e.g. mpe's `MetricScore`)."""

    @property
    def value(self) -> float | None: ...
    @property
    def n(self) -> int: ...
    @property
    def ci_low(self) -> float | None: ...
    @property
    def ci_high(self) -> float | None: ...
    @property
    def reportable(self) -> bool | None: ...


RUN_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d")


def esc(text: object) -> str:
    """HTML-escaped, every control and bidi character shown escaped (floorbench.escape)."""
    return html_text(text)


def bar_chart(title: str, groups: Sequence[str], series: Sequence[str],
              values: dict[tuple[str, str], Score | None]) -> str:
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
