"""`floorbench report` for suite turns: the tables side by side and a latency-vs-false-positive scatter.

A scored turns run is a folder holding turns_scores.json (`floorbench score`
detects the suite). The Markdown is `turns_tables.render_turns_markdown`; the
HTML holds the same tables and one inline SVG per track placing every run at
(false-positive rate, latency p50), the trade-off TurnBench ranks on. No
scripts, no external resources; every text from the runs is escaped.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from floorbench.escape import md_cell
from floorbench.report.html import CSS
from floorbench.report.svg import esc
from floorbench.scoring.inputs import InputError
from floorbench.suites.turns.tables import (
    TRACK_TITLES,
    event_rows,
    render_turns_markdown,
    track_rows,
    type_rows,
)

SCORES = "turns_scores.json"


def is_turns_run(path: Path) -> bool:
    return (path / SCORES).is_file() if path.is_dir() else path.name == SCORES


def load_turns_scores(path: Path) -> dict[str, Any]:
    p = path / SCORES if path.is_dir() else path
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{p}: not a readable turns_scores.json ({type(e).__name__}); re-run `floorbench score`") from e
    if not isinstance(data, dict) or data.get("suite") != "turns" or "tracks" not in data:
        raise InputError(f"{p}: not a turns_scores.json of this version; re-run `floorbench score`")
    return data


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


def _html_table(title: str, headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{esc(x)}</th>" for x in headers)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<h3>{esc(title)}</h3><table><tr>{head}</tr>{body}</table>"


def render_turns_html(runs: list[dict[str, Any]], title: str) -> str:
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1><p class='note'>Generated {datetime.now(UTC).isoformat(timespec='seconds')} by "
        "<code>floorbench report</code>; suite turns, definitions in docs/suites/turns.md.</p>",
        "<div class='charts'>" + "".join(scatter(runs, t) for t in TRACK_TITLES) + "</div>",
        _html_table("Tracks", ["run", "track", "recall", "FP rate", "latency p10/p50/p90", "tp/fn/fp/tn", "qualifies"],
                    [r for s in runs for r in track_rows(s)]),
        _html_table("Per event type", ["run", "event", "played", "not run", "false positives", "takeover rate"],
                    [r for s in runs for r in event_rows(s)]),
        _html_table("End of turn by conversation type", ["run", "conversation type", "dialogues", "recall", "FP rate"],
                    [r for s in runs for r in type_rows(s)]),
        "</body></html>",
    ]
    return "\n".join(parts)


def write_turns_report(paths: list[Path], out: Path, title: str) -> tuple[Path, Path]:
    runs = [load_turns_scores(p) for p in paths]
    out.mkdir(parents=True, exist_ok=True)
    md, html = out / "report.md", out / "report.html"
    md.write_text(f"# {md_cell(title)}\n\n" + render_turns_markdown(runs), encoding="utf-8")
    html.write_text(render_turns_html(runs, title), encoding="utf-8")
    return md, html


def report(paths: list[Path], out: Path, title: str, max_timelines: int = 12) -> tuple[Path, Path]:
    """Suite turns' part `report`: the tables side by side and the scatter (no timelines)."""
    return write_turns_report(paths, out, title)
