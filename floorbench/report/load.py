"""Load scored runs for reporting: scores.json, items.jsonl, vad.jsonl, and the dialogues.

The report reads only what `floorbench score` wrote (and each dialogue's
turns.json): no audio is decoded and no VAD is run here; a dialogue folder it
draws from must still pass the recordings' consistency check
(scoring.inputs.check_recording), or the report is refused. A file that does not
parse, or a vad.jsonl row whose fields are not what scoring writes (a `folder`
that is a path rather than a name inside the run, negative times, a curve with
no step), is one `InputError` naming the file and line: the report never
draws from, or reads through, a record it cannot trust.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from floorbench.paths import inside
from floorbench.records import DialogueTurns
from floorbench.scoring.inputs import InputError, first_error, load_turns, read_checked_dialogue
from floorbench.scoring.items import Item
from floorbench.scoring.scores_file import ScoresFile, read_items, read_scored_text, read_scores

MAX_MS = 7 * 24 * 3600 * 1000
"""a week: longer than any dialogue; a larger time in a file is refused, not drawn tick by tick"""


class VadRow(BaseModel):
    """One vad.jsonl line as the report uses it; keys it does not use are kept unchecked."""

    model_config = ConfigDict(extra="allow")

    scenario_id: str = Field(min_length=1)
    folder: str | None = None
    duration_ms: int = Field(ge=0, le=MAX_MS)
    segments: list[tuple[int, int]] = Field(default_factory=list)
    curve_step_ms: int | None = Field(default=None, gt=0)
    probability_pct: list[int] | None = None
    envelope_pct: list[int] | None = None

    @field_validator("folder")
    @classmethod
    def _a_name_inside_the_run(cls, v: str | None) -> str | None:
        if v is not None and (v in ("", ".", "..") or "/" in v or "\\" in v or "\0" in v):
            raise ValueError("must be the name of a folder inside the run, not a path")
        return v

    @field_validator("segments")
    @classmethod
    def _ordered(cls, v: list[tuple[int, int]]) -> list[tuple[int, int]]:
        if any(not 0 <= a <= b <= MAX_MS for a, b in v):
            raise ValueError(f"each segment must be [start, end] with 0 <= start <= end <= {MAX_MS}")
        return v


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


def read_vad_file(folder: Path) -> dict[str, dict[str, Any]]:
    """vad.jsonl of a scored folder by scenario_id (empty when the file is missing); each line
    is checked against `VadRow`, and a line that is not one is an `InputError` naming it."""
    path = folder / "vad.jsonl"
    rows: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return rows
    for n, line in enumerate(read_scored_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = VadRow.model_validate_json(line)
        except ValidationError as e:
            raise InputError(
                f"{path}:{n}: not a vad.jsonl row of this version ({first_error(e)}); re-run `floorbench score`"
            ) from e
        rows[row.scenario_id] = row.model_dump(exclude_none=True)
    return rows


def holds_scores(path: Path, name: str) -> bool:
    """A run folder holding the scores file `name` (``turns_scores.json`` …), or that file: a suite's `reports`."""
    return (path / name).is_file() if path.is_dir() else path.name == name


def load_scores_json(path: Path, name: str, suite: str, key: str) -> dict[str, Any]:
    """Suite `suite`'s scores file `name` in the run folder `path` (or `path` itself), of this version (it has
    `key`); one `InputError` line naming the file otherwise."""
    p = path / name if path.is_dir() else path
    from floorbench.readers import load_json

    data = load_json(p, InputError, f"so it is not a readable {name}; re-run `floorbench score`")
    if not isinstance(data, dict) or data.get("suite") != suite or key not in data:
        article = "an" if name[:1] in ("a", "e", "i", "o", "u") else "a"
        raise InputError(f"{p}: not {article} {name} of this version; re-run `floorbench score`")
    return data


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
