"""Suite mpe's report: report.md and report.html of scored mpe runs, and the summary `floorbench score` prints.

Its metric tables, McNemar, positions and sensitivity (`report_tables`), bar charts of the four capacities and
two diagnostics, the failed items, and dialogue timelines (`timeline`) are mpe's own; the page shell (CSS,
escaping, bar charts, writing the two pages) is the engine's (`floorbench.report`). The plug-in's part
`report` is `write_scored_report`.

Timelines draw the VAD probability and the loudness of the model's track from the curve `floorbench score`
stored in vad.jsonl; a folder scored before that is drawn without them, and its summary line says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from floorbench.escape import md_cell
from floorbench.report.html import CSS
from floorbench.report.render import write_pages
from floorbench.report.svg import bar_chart, esc
from floorbench.scoring.transport_summary import latency_cell
from floorbench.suites.mpe.items import CAPACITIES, DIAGNOSTICS, Item, Kind
from floorbench.suites.mpe.report_tables import (
    METRIC_TITLES,
    Table,
    all_tables,
    conditions,
    failures_table,
    fmt_score,
)
from floorbench.suites.mpe.scored_runs import ScoredRun, load_runs
from floorbench.suites.mpe.scores_file import ScoresFile
from floorbench.suites.mpe.timeline import LABEL_COLORS, timeline


def write_scored_report(paths: list[Path], out: Path, title: str = "floorbench report",
                        max_timelines: int = 12) -> tuple[Path, Path]:
    """Suite mpe's part `report`: the metric tables, McNemar, positions, and dialogue timelines."""
    runs = load_runs(paths)
    return write_pages(out, render_markdown(runs, title), render_html(runs, title, timeline_blocks(runs, max_timelines)))


NO_CURVE = "no stored VAD curve (scored before vad.jsonl carried one; re-run `floorbench score` to draw it)"


def pick_dialogues(run: ScoredRun, limit: int) -> list[str]:
    """Dialogues with failed items first, then the rest, each group in scenario order."""
    by = run.items_by_scenario()
    failing = sorted(s for s, its in by.items() if any(i.counted and i.passed is False for i in its))
    passing = sorted(s for s in by if s not in failing)
    return (failing + passing)[:limit]


def _summary(items: list[Item]) -> str:
    counted = [i for i in items if i.counted]
    failed = [f"{i.metric.value}:{i.kind.value}" for i in counted if i.passed is False]
    unscorable = sum(i.kind is Kind.unscorable for i in items)
    unsure = sum(i.kind is Kind.unsure for i in items)
    return (
        f"{len(counted) - len(failed)}/{len(counted)} items passed"
        + (f"; failed {', '.join(failed)}" if failed else "")
        + (f"; {unscorable} unscorable (past the end of the recording)" if unscorable else "")
        + (f"; {unsure} unsure (the judge did not decide)" if unsure else "")
    )


def timeline_blocks(runs: list[ScoredRun], max_per_run: int) -> list[TimelineBlock]:
    blocks: list[TimelineBlock] = []
    for run in runs:
        by = run.items_by_scenario()
        for sid in pick_dialogues(run, max_per_run):
            turns = run.turns(sid)
            row = run.vad.get(sid, {})
            items = by.get(sid, [])
            curve = run.curve(sid)
            svg = timeline(
                turns.turns if turns else [],
                [tuple(s) for s in row.get("segments", [])],
                items,
                int(row.get("duration_ms", 0)),
                curve,
            )
            summary = _summary(items) if curve else f"{_summary(items)}; {NO_CURVE}"
            transcripts = [
                (f"turn {i.turn_id} {i.label} {i.metric.value}", i.kind.value, i.transcript or "")
                for i in items
                if i.transcript is not None
            ]
            blocks.append(TimelineBlock(run.label, sid, summary, svg, transcripts))
    return blocks


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


def md_table(t: Table) -> str:
    lines = [f"### {md_cell(t.title)}", ""]
    if t.note:
        lines += [md_cell(t.note), ""]
    lines.append("| " + " | ".join(md_cell(h) for h in t.headers) + " |")
    lines.append("|" + "|".join("---" for _ in t.headers) + "|")
    for row in t.rows:
        lines.append("| " + " | ".join(md_cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def render_markdown(runs: list[ScoredRun], title: str, failures: int = 30) -> str:
    parts = [
        f"# {md_cell(title)}",
        "",
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by `floorbench report`. "
        "Metrics as defined in docs/suites/mpe.md (suite `mpe`); times on the recorder's clock.",
        "",
    ]
    parts += [md_table(t) for t in all_tables(runs)]
    parts += [md_table(failures_table(r, failures)) for r in runs]
    return "\n".join(parts)


def summary_lines(scores: ScoresFile) -> list[str]:
    """A few lines for the terminal after scoring."""
    s = scores.scenarios
    lines = [
        f"{scores.run}: scored {s.get('scored', 0)} dialogues "
        f"(failed {s.get('failed', 0)}, lost {s.get('in_progress', 0)}, unreadable {s.get('unreadable', 0)})"
    ]
    for cond, c in scores.conditions.items():
        lines.append(f"  {cond} ({c.n_scenarios} scenarios)")
        for m in (*CAPACITIES, *DIAGNOSTICS):
            lines.append(f"    {m.value:22s} {fmt_score(c.metrics.get(m.value))}")
    if scores.transport_latency_ms.get("humans", {}).get("n_turns"):
        lines.append(f"  room latency (playback → recorder, not subtracted): {latency_cell(scores.transport_latency_ms)}")
    legs = scores.transport_latency_ms.get("legs") or {}
    if legs:
        lines.append("  legs p50 / p95 ms: " + "; ".join(
            f"{name.replace('_to_', ' → ')} {leg['p50']:.1f} / {leg['p95']:.1f} (n={leg['n']})" for name, leg in legs.items()
        ))
    if s.get("clock_recorder"):
        lines.append(
            f"  {s['clock_recorder']} dialogue(s) timed on the recorder's clock (no sender records: "
            "its jitter buffer's stretch is in their times)"
        )
    if scores.mcnemar:
        m = scores.mcnemar
        lines.append(
            f"  McNemar presence explicit vs implicit: {m.n_pairs} pairs, explicit only {m.explicit_only}, "
            f"implicit only {m.implicit_only}, p = {m.p:.4f}"
        )
    return lines


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
