"""Load scored runs for reporting: scores.json, items.jsonl, vad.jsonl, and the dialogues.

The report reads only what `floorbench score` wrote (and each dialogue's
turns.json): no audio is read and no VAD is run here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.records import DialogueTurns
from floorbench.scoring.inputs import InputError, load_turns
from floorbench.scoring.items import Item
from floorbench.scoring.score import ScoresFile, read_items, read_scores, read_vad_rows


@dataclass
class Curve:
    """What `floorbench score` stored to draw a dialogue: Silero probability and RMS envelope, 0..1."""

    step_ms: int
    probability: list[float]
    envelope: list[float]


@dataclass
class ScoredRun:
    """One scored run as the report sees it."""

    folder: Path
    scores: ScoresFile
    items: list[Item]
    vad: dict[str, dict[str, Any]] = field(default_factory=dict)
    """scenario_id → its vad.jsonl row: {'duration_ms', 'segments', 'folder', the curve ...}"""
    label: str = ""

    def items_by_scenario(self) -> dict[str, list[Item]]:
        out: dict[str, list[Item]] = defaultdict(list)
        for it in self.items:
            out[it.scenario_id].append(it)
        return out

    def dialogue_folder(self, scenario_id: str) -> Path | None:
        row = self.vad.get(scenario_id)
        if row is None:
            return None
        src = Path(self.scores.source)
        folder = src if self.scores.source_kind == "dialogue" else src / str(row.get("folder", scenario_id))
        return folder if folder.is_dir() else None

    def curve(self, scenario_id: str) -> Curve | None:
        """The stored drawing curve; None for a folder scored before vad.jsonl carried one."""
        row = self.vad.get(scenario_id, {})
        try:
            return Curve(
                int(row["curve_step_ms"]),
                [int(v) / 100 for v in row["probability_pct"]],
                [int(v) / 100 for v in row["envelope_pct"]],
            )
        except (KeyError, TypeError, ValueError):
            return None

    def turns(self, scenario_id: str) -> DialogueTurns | None:
        folder = self.dialogue_folder(scenario_id)
        if folder is None or not (folder / "turns.json").is_file():
            return None
        try:
            return load_turns(folder / "turns.json")
        except InputError:
            return None


def load_run(path: Path) -> ScoredRun:
    folder = path.parent if path.is_file() else path
    scores = read_scores(path)
    items_path = folder / "items.jsonl"
    if not items_path.is_file():
        raise InputError(f"{folder}: scores.json without items.jsonl; re-run `floorbench score`")
    return ScoredRun(
        folder=folder, scores=scores, items=read_items(items_path), vad=read_vad_rows(folder), label=scores.run
    )


def load_runs(paths: list[Path]) -> list[ScoredRun]:
    runs = [load_run(p) for p in paths]
    seen: dict[str, int] = {}
    for r in runs:  # two runs of the same model get distinct labels
        n = seen.get(r.label, 0)
        seen[r.label] = n + 1
        if n:
            r.label = f"{r.label} ({n + 1})"
    return runs
