"""The soak's books: a suite of short scenarios, and the audit of a run folder after the chaos.

`short_suite` writes a suite of N short `mpe` scenarios (the 3 s preamble, then
three turns: evidence, the request, one turn after it) made from the tiny
fixture suite's audio, so one scenario plays in about 15 s with `silent`.

`audit` reads what a run folder holds once the soak has resumed it to the end,
from the files alone, and counts what the soak promises about it:

- **lost**: a planned scenario that is not, in the end, completed with intact
  records (meta.json, turns.json, model.wav, humans.wav), or whose run.json line
  is missing or does not say completed;
- **duplicated**: a scenario completed by more than one attempt (an earlier
  attempt file that says completed), listed more than once in run.json, whose
  attempt numbers are not 1..n without a gap or a repeat, whose run.json
  `attempts` disagrees with its meta.json, or (dispatch) whose meta.json comes
  from another room than the attempt that was published;
- **inconsistent**: a completed scenario whose files disagree with its meta.json
  (`scoring.inputs.check_recording`, the check `score` and `report` make: each
  track's WAV length and rate, its frame log counting up to that length
  without a restart, turns.json's end and turns inside the model's track) —
  what an attempt written over a killed one's files looks like;
- **failed then retried**: completed in the end after one or more failed attempts,
  with the failure kinds of those attempts.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.run import resume
from floorbench.records import DialogueTurns, Outcome, RunMeta, read_meta
from floorbench.scoring.inputs import InconsistentRecording, check_recording

TINY = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "suites" / "tiny"
SHORT_TURNS = {"tiny01": (1, 2, 3), "tiny02": (1, 5, 6)}
"""the turns of each tiny pair that a short scenario keeps: evidence, the request, one turn after it"""


def _short(data: dict[str, Any], keep: tuple[int, ...], pair: str) -> dict[str, Any]:
    turns = [dict(t) for t in data["turns"] if t["id"] in keep]
    for i, t in enumerate(turns, 1):
        t["id"] = i
    sid = f"{pair}-{data['condition']}"
    return data | {"scenario_id": sid, "pair_id": pair, "turns": turns}


def short_suite(count: int, into: Path) -> Path:
    """A suite folder of `count` short scenarios, rounded up to whole pairs (explicit and implicit)."""
    dest = into / "suite"
    (dest / "scenarios").mkdir(parents=True)
    shutil.copytree(TINY / "audio", dest / "audio")  # a suite's audio must lie inside its folder
    suite = yaml.safe_load((TINY / "suite.yaml").read_text())
    suite["name"] = "soak"
    suite["description"] = "Soak: short three-turn scenarios cut from the tiny suite."
    (dest / "suite.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    for k in range((count + 1) // 2):
        base = sorted(SHORT_TURNS)[k % len(SHORT_TURNS)]
        pair = [
            yaml.safe_load((TINY / "scenarios" / f"{base}-{c}.yaml").read_text())
            for c in ("explicit", "implicit")
        ]
        short = [_short(d, SHORT_TURNS[base], f"soak{k:03d}") for d in pair]
        differs = [
            a["id"]
            for a, b in zip(short[0]["turns"], short[1]["turns"], strict=True)
            if a["text"] != b["text"]
        ]
        for data in short:
            data["differs"] = differs
            (dest / "scenarios" / f"{data['scenario_id']}.yaml").write_text(
                yaml.safe_dump(data, sort_keys=False)
            )
    return dest


@dataclass
class ScenarioBook:
    """Every attempt of one scenario, from its folder."""

    scenario_id: str
    attempts: list[RunMeta]
    """the readable ones of meta.attempt-1.json, …, then meta.json"""
    numbers: list[int]
    """the attempt numbers on record: the archived files' (by name), then meta.json's"""
    final: RunMeta | None
    """meta.json (None: missing or torn)"""
    intact: str | None
    """None when the folder holds a completed scenario with readable records; else why not"""


def read_book(folder: Path) -> ScenarioBook:
    archived = sorted(folder.glob("meta.attempt-*.json"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    numbers = [int(p.stem.rsplit("-", 1)[1]) for p in archived]
    metas: list[RunMeta] = []
    for p in archived:
        try:
            metas.append(RunMeta.model_validate_json(p.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    final = read_meta(folder)
    if final is not None:
        metas.append(final)
        numbers.append(final.attempt)
    intact = resume.why_not_intact(folder) if folder.is_dir() else "no folder"
    return ScenarioBook(folder.name, metas, numbers, final, intact)


@dataclass
class Audit:
    """What the run folder holds after the soak, counted (see the module docstring)."""

    planned: int = 0
    completed: int = 0
    failed_then_retried: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    inconsistent: list[str] = field(default_factory=list)
    attempts: Counter[int] = field(default_factory=Counter)
    """attempts per scenario → how many scenarios took that many"""
    failures: Counter[str] = field(default_factory=Counter)
    """failure kinds of every attempt that did not complete"""
    timing: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    """one line per lost, duplicated or inconsistent scenario: why"""

    def record(self) -> dict[str, Any]:
        return {
            "planned": self.planned,
            "completed": self.completed,
            "failed_then_retried": self.failed_then_retried,
            "lost": len(self.lost),
            "duplicated": len(self.duplicated),
            "inconsistent": len(self.inconsistent),
            "attempts_per_scenario": {str(k): v for k, v in sorted(self.attempts.items())},
            "failure_kinds": dict(sorted(self.failures.items())),
            "timing": dict(sorted(self.timing.items())),
            "problems": self.problems[:20],
        }


def _duplication(book: ScenarioBook, entries: list[dict[str, Any]], folder: Path) -> str | None:
    """Why the scenario's records show more than one result, or None."""
    done = [m.attempt for m in book.attempts if m.outcome == Outcome.completed]
    if len(done) > 1:
        return f"completed by attempts {done}"
    if len(entries) > 1:
        return f"listed {len(entries)} times in run.json"
    if book.numbers != list(range(1, len(book.numbers) + 1)):
        return f"attempt numbers on record {book.numbers}, not 1..{len(book.numbers)}"
    final = book.final
    if entries and final is not None and entries[0].get("attempts") != final.attempt:
        return f"run.json says {entries[0].get('attempts')} attempts, meta.json attempt {final.attempt}"
    state = dispatch.current(folder)
    if (
        final is not None
        and state.get("state") == "published"
        and not final.room.endswith(f"{str(state.get('token'))[:8]}-{book.scenario_id}")
    ):
        return f"meta.json is from room {final.room}, not the published attempt {state.get('token')}"
    return None


def inconsistency(folder: Path, final: RunMeta | None) -> str | None:
    """Why a completed scenario's files disagree with its meta.json (`check_recording`), or None."""
    if final is None or final.outcome != Outcome.completed:
        return None
    try:
        turns = DialogueTurns.model_validate_json((folder / "turns.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        turns = None
    try:
        check_recording(folder, final, turns)
    except InconsistentRecording as e:
        return str(e).split("; its recordings and meta.json disagree")[0]
    return None


def audit(out: Path, scenario_ids: list[str]) -> Audit:
    """Count completed, retried, lost, duplicated and inconsistent scenarios of `out` (a run folder) over
    `scenario_ids`."""
    result = Audit(planned=len(scenario_ids))
    try:
        info = json.loads((out / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        info = {}
    lines: dict[str, list[dict[str, Any]]] = {}
    for e in info.get("scenarios") or []:
        lines.setdefault(str(e.get("scenario_id")), []).append(e)
    for sid in scenario_ids:
        book = read_book(out / sid)
        entries = lines.get(sid, [])
        final = book.final
        result.attempts[len(book.numbers)] += 1
        result.failures.update(
            str(m.failure_kind.value if m.failure_kind else m.outcome.value)
            for m in book.attempts
            if m.outcome != Outcome.completed
        )
        unreadable = None if book.intact and book.intact.startswith("records disagree") else book.intact
        why_inconsistent = None if unreadable else inconsistency(out / sid, final)
        why_lost = unreadable or (
            None
            if entries and entries[0].get("outcome") == Outcome.completed.value
            else "run.json does not list it as completed"
        )
        if why_lost is not None and why_inconsistent is None:
            result.lost.append(sid)
            result.problems.append(f"{sid}: lost ({why_lost})")
        elif why_inconsistent is not None:  # completed, its records readable, but they do not tell one story
            result.inconsistent.append(sid)
            result.problems.append(f"{sid}: inconsistent ({why_inconsistent})")
        else:
            result.completed += 1
            if len(book.numbers) > 1:
                result.failed_then_retried += 1
            if final is not None and final.timing is not None:
                result.timing[final.timing.verdict] += 1
        if (why_dup := _duplication(book, entries, out / sid)) is not None:
            result.duplicated.append(sid)
            result.problems.append(f"{sid}: duplicated ({why_dup})")
    return result
