"""Suite mpe's scored runs as its report reads them: scores.json, items.jsonl, vad.jsonl and each dialogue.

A dialogue folder the report draws from must still pass the recordings' consistency check
(`floorbench.scoring.inputs.read_checked_dialogue`), or the report is refused; a file that does not parse
is one `InputError` naming it (the engine's `floorbench.report.load` reads vad.jsonl and its curves).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.paths import inside
from floorbench.records import DialogueTurns
from floorbench.report.load import Curve, read_vad_file
from floorbench.scoring.inputs import InputError, load_turns, read_checked_dialogue
from floorbench.suites.mpe.items import Item
from floorbench.suites.mpe.scores_file import ScoresFile, read_items, read_scores


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
        if self.scores.source_kind == "dialogue":
            return src if src.is_dir() else None
        # a name in the run, never a path (or a link) out of it: refused like every path under a root
        folder = inside(src, str(row.get("folder", scenario_id)), f"{src}: dialogue folder", InputError)
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
    run = ScoredRun(
        folder=folder, scores=scores, items=read_items(items_path), vad=read_vad_file(folder), label=scores.run
    )
    for sid in sorted(run.vad):  # a folder whose files disagree with its meta.json is refused, not drawn
        if (dialogue := run.dialogue_folder(sid)) is not None:
            read_checked_dialogue(dialogue)
    return run


def load_runs(paths: list[Path]) -> list[ScoredRun]:
    runs = [load_run(p) for p in paths]
    seen: dict[str, int] = {}
    for r in runs:  # two runs of the same model get distinct labels
        n = seen.get(r.label, 0)
        seen[r.label] = n + 1
        if n:
            r.label = f"{r.label} ({n + 1})"
    return runs
