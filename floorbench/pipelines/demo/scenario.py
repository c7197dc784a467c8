"""`floorbench demo --scenario FILE --as SPEAKER`: you speak one role of a scenario live, the playback the others.

The script is the scenario's turns in order. A turn of another speaker is
played from its rendered audio on the playback participant's track; at one of
yours the terminal shows your line and the script waits until you have spoken
and stopped (your turn's end, as `TurnWatcher` hears it) or `your_timeout_s`
has passed. A fixed `gap_ms` separates turns. This is a plain sequential
script, not the suite's live schedule: no wait windows for the model, no
barge-in handling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.errors import FloorbenchError


class ScriptError(FloorbenchError):
    """A scenario that cannot be played as a demo script (unknown speaker, no audio)."""


@dataclass(frozen=True)
class Step:
    turn_id: int
    speaker: str
    text: str
    audio: np.ndarray | None
    """None: your line"""


def suite_root_of(path: Path) -> Path:
    """The suite folder holding `path` (the nearest parent with a suite.yaml)."""
    for parent in path.resolve().parents:
        if (parent / "suite.yaml").is_file():
            return parent
    raise ScriptError(f"{path}: not inside a suite folder (no suite.yaml above it); pass a scenario of a rendered suite")


def script(path: Path, speaker: str, rate: int) -> tuple[list[Step], Path, str]:
    """The steps of the scenario at `path` with `speaker` (id or name) as you; (steps, suite root, speaker id)."""
    from floorbench.pipelines.run.scenario_run import load_audio
    from floorbench.scenarios.validate import load_scenario_file

    root = suite_root_of(path)
    scenario: Any = load_scenario_file(path, root=root)
    speakers = {sid: getattr(s, "name", sid) for sid, s in scenario.speakers.items()}
    you = next((sid for sid, name in speakers.items() if speaker in (sid, name) or speaker.lower() == str(name).lower()), None)
    if you is None:
        choices = ", ".join(f"{sid} ({name})" for sid, name in speakers.items())
        raise ScriptError(f"--as {speaker!r}: {path} has no such speaker; choose one of {choices}")
    steps = []
    for t in scenario.turns:
        if t.speaker == you:
            steps.append(Step(t.id, t.speaker, t.text, None))
            continue
        if not t.audio:
            raise ScriptError(f"{path}: turn {t.id} has no audio; run `floorbench render {root}` first")
        steps.append(Step(t.id, t.speaker, t.text, load_audio(root / t.audio, rate, f"{path}: turn {t.id}")))
    return steps, root, you


async def play_script(
    steps: list[Step],
    play: Callable[[np.ndarray], Any],
    your_turns: Callable[[], int],
    say: Callable[[str], None],
    gap_ms: int = 500,
    your_timeout_s: float = 30.0,
) -> list[dict[str, Any]]:
    """Run the steps: `play(pcm)` returns an awaitable that ends when the clip is sent; returns what happened."""
    log: list[dict[str, Any]] = []
    for step in steps:
        if step.audio is None:
            before = your_turns()
            say(f"your line (turn {step.turn_id}): {step.text}")
            for _ in range(max(1, int(your_timeout_s / 0.05))):
                if your_turns() > before:
                    break
                await asyncio.sleep(0.05)
            log.append({"turn_id": step.turn_id, "who": "you", "spoken": your_turns() > before})
        else:
            await play(step.audio)
            log.append({"turn_id": step.turn_id, "who": step.speaker, "played": True})
        await asyncio.sleep(gap_ms / 1000)
    return log
