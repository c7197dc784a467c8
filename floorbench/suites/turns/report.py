"""`floorbench report` for suite turns: the tables side by side and a latency-vs-false-positive scatter.

A scored turns run is a folder holding turns_scores.json (`floorbench score`
detects the suite). The Markdown is `turns_tables.render_turns_markdown`; the
HTML holds the same tables and one inline SVG per track placing every run at
(false-positive rate, latency p50), the trade-off TurnBench ranks on. No
scripts, no external resources; every text from the runs is escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from floorbench.escape import md_cell
from floorbench.report.html import suite_page_head, titled_table
from floorbench.report.load import holds_scores, load_scores_json
from floorbench.report.render import write_pages
from floorbench.report.svg import esc
from floorbench.suites.turns.tables import TRACK_TITLES, render_turns_markdown, tables

SCORES = "turns_scores.json"


def is_turns_run(path: Path) -> bool:
    return holds_scores(path, SCORES)


def load_turns_scores(path: Path) -> dict[str, Any]:
    return load_scores_json(path, SCORES, "turns", "tracks")


def scatter(runs: list[dict[str, Any]], track: str, w: int = 420, h: int = 260) -> str:
    """Each run at (FP rate, latency p50 ms) on one track; runs without a latency are listed, not drawn."""
    pad, pts = 44, []
    for r in runs:
        t = r["tracks"][track]
        if t["fp_rate"] is not None and t["latency_ms"].get("p50") is not None:
            pts.append((r["run"], float(t["fp_rate"]), float(t["latency_ms"]["p50"])))
    top = max([p[2] for p in pts] + [1000.0]) * 1.1
    out = [f'<svg class="chart" width="{w}" height="{h}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg">',
           f'<text class="ct" x="{pad}" y="14">{esc(TRACK_TITLES[track])}: latency p50 vs FP rate</text>',
           f'<line class="grid" x1="{pad}" y1="{h - pad}" x2="{w - 10}" y2="{h - pad}"/>',
           f'<line class="grid" x1="{pad}" y1="24" x2="{pad}" y2="{h - pad}"/>',
           f'<text x="{pad}" y="{h - pad + 16}">0</text><text x="{w - 30}" y="{h - pad + 16}">1.0</text>',
           f'<text x="{w // 2 - 30}" y="{h - 8}">FP rate</text><text x="2" y="30">{top:.0f} ms</text>']
    for name, fp, lat in pts:
        x = pad + fp * (w - pad - 10)
        y = (h - pad) - lat / top * (h - pad - 24)
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#4c78a8"/>'
                   f'<text class="val" x="{x + 6:.1f}" y="{y - 4:.1f}">{esc(name)}</text>')
    out.append("</svg>")
    return "".join(out)


def render_turns_html(runs: list[dict[str, Any]], title: str) -> str:
    parts = [
        *suite_page_head(title, "suite turns, definitions in docs/suites/turns.md"),
        "<div class='charts'>" + "".join(scatter(runs, t) for t in TRACK_TITLES) + "</div>",
        *(titled_table(*t) for t in tables(runs)),
        "</body></html>",
    ]
    return "\n".join(parts)


def write_turns_report(paths: list[Path], out: Path, title: str) -> tuple[Path, Path]:
    runs = [load_turns_scores(p) for p in paths]
    return write_pages(out, f"# {md_cell(title)}\n\n" + render_turns_markdown(runs), render_turns_html(runs, title))


def report(paths: list[Path], out: Path, title: str, max_timelines: int = 12) -> tuple[Path, Path]:
    """Suite turns' part `report`: the tables side by side and the scatter (no timelines)."""
    return write_turns_report(paths, out, title)
