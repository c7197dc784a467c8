"""Suite agent's part `load_scenario`: checking the scenario files a test file became.

A test file (floorbench/suites/agent/validate.py reads it) is turned into one
scenario file per trial (floorbench/suites/agent/importer.py); those files are
what the runner, the schedule and the scorer read. This module checks one of
them against the rules they rely on (steps numbered in order, each step naming
its own clips, hang_up last, a silence recorded), one line naming the file,
scenario and step, kept apart from the test file's own format.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from pydantic import ValidationError

from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.validate import ScenarioError, check_clips_audio, pydantic_line
from floorbench.suites.agent import dtmf_format
from floorbench.suites.agent.rules import CLIP_LABELS, StepKind
from floorbench.suites.agent.schema import AgentScenario


def parse_agent_scenario(path: Path, data: object) -> AgentScenario:
    try:
        return AgentScenario.model_validate(data)
    except ValidationError as err:
        sid = data.get("scenario_id") if isinstance(data, dict) else None
        raise ScenarioError(pydantic_line(path, str(sid) if sid else None, data, err)) from None


def check_agent_scenario(s: AgentScenario, path: Path) -> None:
    """The rules the schedule and the scorer rely on; one line naming the file, scenario and step."""
    where = f"{path}: scenario {s.scenario_id}"
    if not s.steps:
        raise ScenarioError(f"{where}: no steps; regenerate it from its test file")
    if [c.id for c in s.turns] != list(range(1, len(s.turns) + 1)):
        raise ScenarioError(f"{where}: clip ids must be 1, 2, 3, … in order; regenerate it from its test file")
    clips = {c.id: c for c in s.turns}
    for i, st in enumerate(s.steps):
        at = f"{where}: step {st.n} ({st.kind})"
        if st.n != i + 1:
            raise ScenarioError(f"{at}: step numbers must be 1, 2, 3, … in order")
        if st.kind is StepKind.hang_up:
            if st.clip is not None or i != len(s.steps) - 1:
                raise ScenarioError(f"{at}: hang_up plays nothing and comes last")
            continue
        if st.kind is StepKind.dtmf:
            dtmf_format.check(at, st)
            continue
        if (st.kind is StepKind.branch) != (st.branch is not None):
            raise ScenarioError(f"{at}: rules belong to a branch step, and a branch step has them; "
                                "regenerate it from its test file")
        if (st.kind is StepKind.persona) != (st.persona is not None) or (st.persona and not st.persona.clips):
            raise ScenarioError(f"{at}: a persona step has its persona and clips; regenerate it from its test file")
        for clip_id in ([r.clip for r in st.branch.options] if st.branch is not None
                        else st.persona.clips if st.persona is not None else [st.clip]):
            c = clips.get(clip_id) if clip_id is not None else None
            if c is None or c.step != st.n or c.label != CLIP_LABELS[st.kind]:
                raise ScenarioError(f"{at}: names clip {clip_id}, which is not its {CLIP_LABELS[st.kind]} clip")
            if c.speaker not in s.speakers:
                raise ScenarioError(f"{at}: clip {c.id}: speaker {c.speaker!r} is not in speakers")
            if st.kind is StepKind.silence and not c.recorded:
                raise ScenarioError(f"{at}: a silence clip is recorded (never rendered); set recorded: true")


def load_agent_scenario(
    path: Path, data: object, root: Path | None = None, audio: bool = False, strict_vocab: bool = False
) -> ScenarioRecord:
    """Suite agent's part `load_scenario` (`strict_vocab` is suite mpe's)."""
    s = parse_agent_scenario(path, data)
    check_agent_scenario(s, path)
    if audio:
        check_clips_audio(root, path, ((f"{path}: scenario {s.scenario_id}: step {c.step}", c.audio) for c in s.turns))
    return cast(ScenarioRecord, s)
