"""`floorbench report`: scored runs → report.md and report.html (side by side).

Timelines draw the VAD probability and the loudness of the model's track from
the curve `floorbench score` stored in vad.jsonl; a folder scored before that
is drawn without them, and its summary line says so.
"""

from __future__ import annotations

from pathlib import Path

from floorbench.errors import FloorbenchError
from floorbench.paths import outputs
from floorbench.report.html import TimelineBlock, render_html
from floorbench.report.load import ScoredRun, load_runs
from floorbench.report.markdown import render_markdown
from floorbench.report.svg import timeline
from floorbench.scoring.inputs import InputError
from floorbench.scoring.items import Item, Kind

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


def write_report(paths: list[Path], out: Path, title: str = "floorbench report",
                 max_timelines: int = 12) -> tuple[Path, Path]:
    """report.md and report.html of `paths`, in the shape of the suite they all belong to."""
    from floorbench.suites.registry import suite_reporting

    report = suite_reporting(paths).part("report")
    try:
        return report(paths, out, title, max_timelines)
    except FloorbenchError:
        raise  # already one line naming the file
    except (KeyError, TypeError, AttributeError, IndexError, ValueError, ZeroDivisionError) as e:
        # a scores file that passed its reader's version check but holds a value of the wrong type or shape
        # (hand-edited, or from another tool): the user's file, named in one line, nothing written yet
        from floorbench.escape import excerpt

        files = [q for p in paths for q in ([p] if p.is_file() else sorted(p.glob("*scores.json")) or [p])]
        names = ", ".join(excerpt(p, 160) for p in files[:3])
        raise InputError(f"{names}: a scores file holds a value of the wrong type or shape ({type(e).__name__}: "
                         f"{excerpt(str(e), 80)}); re-run `floorbench score` on the recordings") from None


def write_scored_report(paths: list[Path], out: Path, title: str = "floorbench report",
                        max_timelines: int = 12) -> tuple[Path, Path]:
    """Suite mpe's part `report`: the metric tables, McNemar, positions, and dialogue timelines."""
    runs = load_runs(paths)
    return write_pages(out, render_markdown(runs, title), render_html(runs, title, timeline_blocks(runs, max_timelines)))


def write_pages(out: Path, markdown: str, html: str) -> tuple[Path, Path]:
    """Write a report's two pages into `out` (made if need be): report.md and report.html."""
    md, page = outputs(out, ("report.md", "report.html"), InputError)  # never through a link out of OUT
    md.write_text(markdown, encoding="utf-8")
    page.write_text(html, encoding="utf-8")
    return md, page
