"""What every suite's report reads of a scored folder: its vad.jsonl rows and drawing curves, its scores file.

The report reads only what `floorbench score` wrote: no audio is decoded and no VAD is run here (a suite's
own loader, such as mpe's `floorbench/suites/mpe/scored_runs.py`, adds its items and dialogues). A file that does not
parse, or a vad.jsonl row whose fields are not what scoring writes (a `folder`
that is a path rather than a name inside the run, negative times, a curve with
no step), is one `InputError` naming the file and line: the report never
draws from, or reads through, a record it cannot trust.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from floorbench.scoring.inputs import InputError, first_error, read_scored_text

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
