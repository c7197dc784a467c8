"""The self-contained HTML report: inline CSS and SVG, no scripts, no external resources.

Every text from the runs (labels, paths, transcripts, turn texts, reasons) is
HTML-escaped, so a transcript containing ``<script>`` is shown as text.
"""

from __future__ import annotations

from datetime import UTC, datetime

from floorbench.report.svg import esc

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

