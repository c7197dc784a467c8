"""The Markdown report, and the short summary `floorbench score` prints."""

from __future__ import annotations

from datetime import UTC, datetime

from floorbench.escape import md_cell
from floorbench.report.load import ScoredRun
from floorbench.report.tables import Table, all_tables, failures_table, fmt_score
from floorbench.scoring.items import CAPACITIES, DIAGNOSTICS
from floorbench.scoring.scores_file import ScoresFile
from floorbench.scoring.transport_summary import latency_cell


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
