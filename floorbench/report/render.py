"""`floorbench report`: scored runs → report.md and report.html (side by side)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from floorbench.report.html import TimelineBlock, render_html
from floorbench.report.load import ScoredRun, load_runs
from floorbench.report.markdown import render_markdown
from floorbench.report.svg import timeline
from floorbench.scoring.items import Item

ENVELOPE_MS = 50


def pick_dialogues(run: ScoredRun, limit: int) -> list[str]:
    """Dialogues with failed items first, then the rest, each group in scenario order."""
    by = run.items_by_scenario()
    failing = sorted(s for s, its in by.items() if any(i.counted and i.passed is False for i in its))
    passing = sorted(s for s in by if s not in failing)
    return (failing + passing)[:limit]


def _audio_views(paths: list[Path | None]) -> list[tuple[np.ndarray | None, np.ndarray | None]]:
    """(VAD probabilities, RMS envelope) of each model track that can be read."""
    from floorbench.audio.vad import speech_probabilities_many
    from floorbench.scoring.inputs import InputError, read_model_track

    audios: list[np.ndarray | None] = []
    for p in paths:
        try:
            audios.append(read_model_track(p / "model.wav")[0] if p is not None else None)
        except InputError:
            audios.append(None)
    present = [a for a in audios if a is not None]
    probs = iter(speech_probabilities_many(present) if present else [])
    out: list[tuple[np.ndarray | None, np.ndarray | None]] = []
    hop = 16 * ENVELOPE_MS
    for a in audios:
        if a is None:
            out.append((None, None))
            continue
        x = a[: len(a) // hop * hop].astype(np.float32).reshape(-1, hop) / 32768.0
        out.append((next(probs), np.sqrt((x**2).mean(axis=1))))
    return out


def _summary(items: list[Item]) -> str:
    counted = [i for i in items if i.counted]
    failed = [f"{i.metric.value}:{i.kind.value}" for i in counted if i.passed is False]
    return f"{len(counted) - len(failed)}/{len(counted)} items passed" + (f"; failed {', '.join(failed)}" if failed else "")


def timeline_blocks(runs: list[ScoredRun], max_per_run: int) -> list[TimelineBlock]:
    blocks: list[TimelineBlock] = []
    for run in runs:
        chosen = pick_dialogues(run, max_per_run)
        folders = [run.dialogue_folder(s) for s in chosen]
        views = _audio_views(folders)
        by = run.items_by_scenario()
        for sid, (probs, env) in zip(chosen, views, strict=True):
            turns = run.turns(sid)
            row = run.vad.get(sid, {})
            items = by.get(sid, [])
            svg = timeline(
                turns.turns if turns else [],
                [tuple(s) for s in row.get("segments", [])],
                items,
                int(row.get("duration_ms", 0)),
                probabilities=probs,
                envelope=env,
                envelope_ms=ENVELOPE_MS,
            )
            transcripts = [
                (f"turn {i.turn_id} {i.label} {i.metric.value}", i.kind.value, i.transcript or "")
                for i in items
                if i.transcript is not None
            ]
            blocks.append(TimelineBlock(run.label, sid, _summary(items), svg, transcripts))
    return blocks


def write_report(paths: list[Path], out: Path, title: str = "floorbench report",
                 max_timelines: int = 12) -> tuple[Path, Path]:
    runs = load_runs(paths)
    out.mkdir(parents=True, exist_ok=True)
    md = out / "report.md"
    html = out / "report.html"
    md.write_text(render_markdown(runs, title), encoding="utf-8")
    html.write_text(render_html(runs, title, timeline_blocks(runs, max_timelines)), encoding="utf-8")
    return md, html
