"""scores.json, items.jsonl and vad.jsonl: the scored folder's files, written and read back.

The format every reader of a scored run shares (`floorbench report`, `judge-agreement`):
`ScoresFile` is scores.json; `Item` lines are items.jsonl; vad.jsonl holds one line per
scored dialogue with the model's speech segments and a drawing curve. Each reader turns a
file that does not parse into a one-line `InputError` naming the file and the fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from floorbench.paths import outputs
from floorbench.records import write_json_atomic
from floorbench.scoring.inputs import InputError, first_error, read_scored_text
from floorbench.suites.mpe import metrics
from floorbench.suites.mpe.items import Item

SCORES_VERSION = 1



class ScoresFile(BaseModel):
    """scores.json."""

    scores_version: int = SCORES_VERSION
    created: str
    source: str
    source_kind: str = Field(description="'run', 'recordings' or 'dialogue'")
    run: str = Field(description="label of the run (model card name or folder name)")
    run_info: dict[str, Any] = Field(default_factory=dict, description="run.json as found")
    scenarios: dict[str, int] = Field(description="found / scored / completed / failed / in_progress / ...")
    errors: list[str] = Field(default_factory=list, description="one line per unreadable input")
    warnings: list[str] = Field(
        default_factory=list, description="one line per scored dialogue with a caveat (e.g. non-speech sound)"
    )
    settings: dict[str, Any]
    conditions: dict[str, metrics.ConditionScores]
    speech_quality: dict[str, Any] = Field(
        default_factory=dict, description="the model's predicted MOS per condition and run (scoring/quality.py)"
    )
    mcnemar: metrics.McNemar | None = None
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    transport_latency_ms: dict[str, Any] = Field(
        default_factory=dict, description="the room's own delay beside the metrics (scoring/transport_summary.py)"
    )


OUTPUTS = ("items.jsonl", "vad.jsonl", "scores.json")


def write_outputs(out: Path, scores: ScoresFile, items: list[Item], vad_rows: list[dict[str, Any]]) -> None:
    items_path, vad_path, scores_path = outputs(out, OUTPUTS, InputError)  # never through a link out of OUT
    _write_lines(items_path, (i.model_dump_json(exclude={"needs_transcript"}) for i in items))
    _write_lines(vad_path, (json.dumps(r) for r in vad_rows))
    write_json_atomic(scores_path, scores)


def _write_lines(path: Path, lines: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for line in lines:
            f.write(line)
            f.write("\n")
    tmp.replace(path)


def read_items(path: Path) -> list[Item]:
    """items.jsonl; one-line `InputError` naming the line if one does not parse."""
    items: list[Item] = []
    for n, line in enumerate(read_scored_text(path).splitlines(), 1):
        if line.strip():
            try:
                items.append(Item.model_validate_json(line))
            except ValidationError as e:
                raise InputError(
                    f"{path}:{n}: not an item of this version ({first_error(e)}); re-run `floorbench score`"
                ) from e
    return items


def read_scores(folder: Path) -> ScoresFile:
    p = folder / "scores.json" if folder.is_dir() else folder
    if not p.is_file():
        raise InputError(f"{folder}: no scores.json; run `floorbench score {folder}` first")
    try:
        return ScoresFile.model_validate_json(read_scored_text(p))
    except ValidationError as e:
        raise InputError(
            f"{p}: not a scores.json of this version ({first_error(e)}); re-run `floorbench score`"
        ) from e


def read_vad_rows(folder: Path) -> dict[str, dict[str, Any]]:
    """vad.jsonl of a scored folder by scenario_id; empty when the file is missing.

    A torn or unreadable line is skipped: the rows only feed drawings and folder names.
    """
    path = folder / "vad.jsonl"
    rows: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return rows
    from floorbench.readers import MAX_JSON_BYTES, ReadError, parse_json, read_bytes

    for line in read_bytes(path, MAX_JSON_BYTES, InputError).decode("utf-8", errors="replace").splitlines():
        try:
            row = parse_json(line, str(path))
        except ReadError:  # torn, too deep, not finite: skipped like a torn line
            continue
        if isinstance(row, dict) and "scenario_id" in row:
            rows[str(row["scenario_id"])] = row
    return rows
