"""The self-contained HTML report: inline CSS and SVG, no scripts, no external resources.

Every text from the runs (labels, paths, transcripts, turn texts, reasons) is
HTML-escaped, so a transcript containing ``<script>`` is shown as text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from floorbench.report.load import ScoredRun
from floorbench.report.svg import bar_chart, esc
from floorbench.report.tables import METRIC_TITLES, Table, all_tables, conditions, failures_table
from floorbench.scoring.items import CAPACITIES, DIAGNOSTICS

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0 4px;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f4f4}.note{color:#666;font-size:12px;margin:0 0 12px}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.chart text,.timeline text{font-size:11px;fill:#333}.ct{font-weight:600;font-size:12px}
.grid{stroke:#eee}.ci{stroke:#222;stroke-width:1.3;fill:none}.val{font-size:10px}
.lbl{fill:#fff!important;font-size:10px}
.env{fill:none;stroke:#4c78a8;stroke-width:1}.seg{fill:#e45756}
.prob{fill:none;stroke:#54a24b;stroke-width:1}.thr{stroke:#bbb;stroke-dasharray:3 3}
rect.pass{fill:#54a24b;opacity:.55}rect.fail{fill:#e45756;opacity:.7}rect.unscorable{fill:#9d9d9d;opacity:.5}
details{margin:6px 0}summary{cursor:pointer}
.legend span{display:inline-block;padding:0 6px;margin-right:4px;color:#fff;border-radius:2px}
"""


@dataclass
class TimelineBlock:
    run: str
    scenario_id: str
    summary: str
    svg: str
    transcripts: list[tuple[str, str, str]]
    """(item, kind, transcript)"""


def html_table(t: Table) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in t.headers)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in t.rows)
    note = f'<p class="note">{esc(t.note)}</p>' if t.note else ""
    return f"<h3>{esc(t.title)}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


def titled_table(title: str, headers: list[str], rows: list[list[str]]) -> str:
    """A suite's table from its rows of cells: an ``<h3>`` title and the table, every text escaped."""
    head = "".join(f"<th>{esc(x)}</th>" for x in headers)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<h3>{esc(title)}</h3><table><tr>{head}</tr>{body}</table>"


def suite_page_head(title: str, about: str, css: str = "") -> list[str]:
    """The first lines of a suite's report page: the head (`CSS`, then the suite's own `css`), the title,
    and the note that says when and by what it was made and `about` (the suite and where its definitions are)."""
    return [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{CSS}{css}</style></head><body>",
        f"<h1>{esc(title)}</h1><p class='note'>Generated {datetime.now(UTC).isoformat(timespec='seconds')} by "
        f"<code>floorbench report</code>; {about}.</p>",
    ]


def charts(runs: list[ScoredRun]) -> str:
    conds = conditions(runs)
    out = ['<div class="charts">']
    for m in (*CAPACITIES, *DIAGNOSTICS):
        values = {}
        for r in runs:
            for c in conds:
                cs = r.scores.conditions.get(c)
                values[(c, r.label)] = cs.metrics.get(m.value) if cs else None
        out.append(bar_chart(METRIC_TITLES[m], conds, [r.label for r in runs], values))
    out.append("</div>")
    return "".join(out)


def render_html(runs: list[ScoredRun], title: str, timelines: list[TimelineBlock], failures: int = 30) -> str:
    from floorbench.report.svg import LABEL_COLORS

    legend = "".join(f'<span style="background:{c}">{esc(k)}</span>' for k, c in LABEL_COLORS.items())
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        f'<p class="note">Generated {esc(datetime.now(UTC).isoformat(timespec="seconds"))} by '
        "<code>floorbench report</code>. Metrics as defined in docs/suites/mpe.md (suite mpe): four capacities "
        "with separate denominators and two coverage diagnostics, 95% scenario-bootstrap intervals.</p>",
        "<h2>Metrics</h2>",
        charts(runs),
        "<h2>Tables</h2>",
        *(html_table(t) for t in all_tables(runs)),
        "<h2>Failed items</h2>",
        *(html_table(failures_table(r, failures)) for r in runs),
        "<h2>Dialogue timelines</h2>",
        f'<p class="note legend">Turns by label: {legend} — model speech: audio envelope (blue) and VAD '
        "segments (red); VAD: Silero probability (green, dashed line 0.5); items: one row per metric (fresh onset, "
        "accuracy, silence, yield, presence, window response), windows that passed (green), failed (red) "
        "or were not covered by the recording or not decided by the judge (grey: unscorable, unsure). Hover for details.</p>",
    ]
    for tb in timelines:
        rows = "".join(
            f"<tr><td>{esc(a)}</td><td>{esc(b)}</td><td>{esc(c)}</td></tr>" for a, b, c in tb.transcripts
        )
        table = (
            f"<table><thead><tr><th>item</th><th>kind</th><th>transcript</th></tr></thead><tbody>{rows}</tbody></table>"
            if rows
            else ""
        )
        parts.append(
            f"<details><summary>{esc(tb.run)} · {esc(tb.scenario_id)} · {esc(tb.summary)}</summary>"
            f"{tb.svg}{table}</details>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)
