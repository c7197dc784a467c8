"""The tables of suite `av` in Markdown, runs side by side (one column per run).

`render_av_markdown` takes one or more av_scores.json records; `floorbench
score` writes it to av_report.md and `floorbench report` puts it in
report.md. Numbers only; the definitions are in docs/suites/av.md, "Scoring".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from floorbench.escape import md_table
from floorbench.suites.av.rules import EXPECTED_TAKEOVER, Category

ROWS = ["overall", *(c.value for c in Category)]


def _rate(row: dict[str, Any] | None) -> str:
    if not row or not row.get("n"):
        return "—"
    lo, hi = (row.get("ci") or [None, None])[:2]
    ci = f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else ""
    return f"{row['tor_alignment']:.2f}{ci} ({row['aligned']}/{row['n']})"


def _lat(row: dict[str, Any] | None) -> str:
    if not row or row.get("p50") is None:
        return (
            "—"
            if not row or row.get("clips", 0) == 0 or row.get("definition", "").startswith("none")
            else "none"
        )
    return f"{row['p50']:.0f} / {row['p90']:.0f} (n={row['n']})"


def _table(title: str, headers: list[str], rows: list[list[str]]) -> str:
    return md_table(title, headers, rows)  # every cell escaped: names and reasons come from files


def tor_rows(runs: Sequence[dict[str, Any]]) -> list[list[str]]:
    out = []
    for name in ROWS:
        expected = "" if name == "overall" else str(EXPECTED_TAKEOVER[Category(name)])
        out.append([name, expected, *(_rate(s["tor_alignment"].get(name)) for s in runs)])
    return out


def latency_rows(runs: Sequence[dict[str, Any]]) -> list[list[str]]:
    return [[c.value, *(_lat(s["latency_ms"].get(c.value)) for s in runs)] for c in Category]


def rubric_rows(runs: Sequence[dict[str, Any]]) -> list[list[str]]:
    def cell(s: dict[str, Any], name: str) -> str:
        r = s.get("rubric") or {}
        if not r.get("judged"):
            return "not judged"
        row = (r.get("by_category") or {}).get(name)
        if not row or not row.get("n"):
            return "—"
        return f"{row['fluency']:.2f} / {row['flow']:.2f} / {row['grounding']:.2f} (n={row['n']})"

    return [[name, *(cell(s, name) for s in runs)] for name in ROWS]


def dynamic_rows(runs: Sequence[dict[str, Any]]) -> list[list[str]]:
    names = sorted({d for s in runs for d in s.get("by_dynamic", {})})
    out = []
    for d in names:
        cells = []
        for s in runs:
            row = s.get("by_dynamic", {}).get(d)
            cells.append(
                "—" if not row else f"{row['takeovers']}/{row['n']} took, {row['aligned']}/{row['n']} aligned"
            )
        out.append([d, *cells])
    return out


def unscorable_rows(runs: Sequence[dict[str, Any]]) -> list[list[str]]:
    return [[s["run"], u["scenario_id"], u["reason"]] for s in runs for u in s.get("unscorable", [])]


def render_av_markdown(runs: Sequence[dict[str, Any]]) -> str:
    names = [s["run"] for s in runs]
    parts = [
        "## Suite av",
        "",
        "TOR alignment per category with 95% clip-bootstrap intervals (aligned/scored clips); latency in ms "
        "from the window's start, per category's own definition (docs/suites/av.md, \"Scoring\"); "
        "unscorable clips are listed and enter no rate.",
        "",
        _table("TOR alignment", ["category", "expected takeover", *names], tor_rows(runs)),
        _table("Latency p50 / p90, ms", ["category", *names], latency_rows(runs)),
        _table("Rubric judge: fluency / flow / grounding, 0–5", ["category", *names], rubric_rows(runs)),
        _table("Per dynamic", ["dynamic", *names], dynamic_rows(runs)),
    ]
    left = unscorable_rows(runs)
    parts.append(
        _table("Unscorable clips", ["run", "scenario", "reason"], left)
        if left
        else "### Unscorable clips\n\nnone\n"
    )
    sounded = [[str(s["run"]), w] for s in runs for w in s.get("warnings", [])]
    if sounded:  # silence the rules would credit where the model made sound: said, never passed unsaid
        parts.append(_table("Loud sound that is not speech on the model track", ["run", "what"], sounded))
    return "\n".join(parts)


def summary_lines(s: dict[str, Any]) -> list[str]:
    """A few lines for the terminal after scoring."""
    tor = s["tor_alignment"]
    lines = [
        f"{s['run']}: scored {s['scenarios']['scored']} av clips, {s['scenarios']['unscorable']} unscorable"
    ]
    for name in ROWS:
        lines.append(
            f"  {name:15s} TOR alignment {_rate(tor.get(name))}"
            + (f"  latency p50/p90 {_lat(s['latency_ms'].get(name))}" if name != "overall" else "")
        )
    r = s.get("rubric") or {}
    if r.get("judged"):
        o = (r.get("by_category") or {}).get("overall") or {}
        lines.append(
            f"  rubric (n={o.get('n', 0)}): fluency {o.get('fluency')} flow {o.get('flow')} "
            f"grounding {o.get('grounding')}; unparsable {r.get('unparsable', 0)}"
        )
    else:
        lines.append(f"  rubric: {r.get('reason', 'not judged')}")
    return lines
