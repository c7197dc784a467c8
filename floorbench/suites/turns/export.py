"""The model's decisions as a TurnBench submission file, so TurnBench's own scorer can read a run.

Format (TurnBench's, schema_version 1): ``{"schema_version": 1, "predictions":
[{"conversation_id": ..., "speaker_1": {"eot": [...], "interruption": [...]},
"speaker_2": {...}}]}``, times in float seconds, strictly increasing.

TurnBench's lists say, per speaker, when *that speaker's* turn ends (`eot`)
and when *that speaker* barges in (`interruption`). In a live room the user is
speaker 1 and the model speaker 2, and the model's decisions are about the
user: its takes are speaker 1's `eot`, its yields speaker 1's `interruption`;
speaker 2's lists stay empty (nobody predicts the model's turns). This is the
one place floorbench writes float seconds, because the format asks for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from floorbench.records import write_json_atomic
from floorbench.suites.turns.events import DialogueOutcome

SUBMISSION_SCHEMA_VERSION = 1


def seconds(times_ms: Sequence[int]) -> list[float]:
    """Strictly increasing float seconds (duplicates dropped; ms are exact in 3 decimals)."""
    return [round(t / 1000, 3) for t in sorted(set(times_ms))]


def submission(outcomes: Sequence[DialogueOutcome]) -> dict[str, Any]:
    return {
        "schema_version": SUBMISSION_SCHEMA_VERSION,
        "predictions": [
            {
                "conversation_id": o.scenario_id,
                "speaker_1": {"eot": seconds(o.takes_ms), "interruption": seconds(o.yields_ms)},
                "speaker_2": {"eot": [], "interruption": []},
            }
            for o in outcomes
        ],
    }


def write_submission(path: Path, outcomes: Sequence[DialogueOutcome]) -> None:
    write_json_atomic(path, submission(outcomes))
