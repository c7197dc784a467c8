"""The scenario records every suite shares, as stored on disk in YAML.

A *suite* is a folder:

    suite.yaml              suite-level facts: name, the suite whose rules it follows, duty preamble
    scenarios/*.yaml        one file per scenario
    audio/...               rendered turn and preamble audio (paths are relative to the suite)

Here are the parts common to all suites: the id rule, the suite header (`Suite`,
`Preamble`), a speaker, the head of a clip (`Clip`, `UngradedClip`) and of a
scenario that is its own pair (`OwnPairScenario`). Each suite's own scenario record
lives in its folder (suite mpe's in floorbench/suites/mpe/schema.py); the engine reads
any of them through `floorbench.scenarios.interface`. These are plain versioned
pydantic models that import nothing heavy, so the CLI and the scoring package can
read them without pulling in LiveKit or pipecat.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath

from pydantic import BaseModel, ConfigDict, Field, field_validator

# the confinement rule lives in floorbench.paths; re-exported here, where its callers import it from
from floorbench.paths import PathEscapeError as PathEscapeError
from floorbench.paths import inside as inside

SCHEMA_VERSION = 1

ID_RULE = "1-128 characters A-Z a-z 0-9 . _ -, starting with a letter or digit, no '..'"
"""the rule every scenario_id (and a suite's own ids, such as mpe's pair_id) obeys: each becomes a file or folder name"""
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def check_id(value: str) -> str:
    """An id usable as one path part (`ID_RULE`); a ValueError naming the rule otherwise."""
    if not _ID.fullmatch(value) or ".." in value:
        raise ValueError(f"{value!r} breaks the id rule ({ID_RULE}); rename it")
    return value


def relative_pattern(value: str) -> str:
    """A path or glob relative to the suite folder: not absolute, no `..` part."""
    for pure in (PurePosixPath(value), PureWindowsPath(value)):
        if pure.is_absolute() or pure.anchor or ".." in pure.parts:
            raise ValueError(f"{value!r} must be relative to the suite folder, without '..'; fix it")
    return value


class Speaker(BaseModel):
    """A simulated human: a display name and a fixed voice."""

    model_config = ConfigDict(extra="forbid")

    name: str
    voice: str = Field(description="voice id, e.g. 'piper:joe' or 'flite:rms'")


class Clip(BaseModel):
    """One piece of a scenario's human track, as every suite has it: its place and who speaks it.

    Each suite's turn or clip record builds on this one (mpe's `Turn`, the turns
    and av suites' clips), so the runner, the renderer and turns.json read the
    same ``id`` and ``speaker`` in every suite.
    """

    model_config = ConfigDict(extra="forbid")

    id: int = Field(description="1-based position of the turn (clip) in the scenario")
    speaker: str = Field(description="speaker id, one of the scenario's speakers (which ones, the suite says)")


class UngradedClip(Clip):
    """A clip of a suite that judges timing, not content: turns.json's per-turn gold is empty."""

    @property
    def gold(self) -> str | None:
        """turns.json's per-turn gold: the suite has none."""
        return None

    @property
    def gold_aliases(self) -> list[str]:
        return []


class OwnPairScenario(BaseModel):
    """A scenario of a suite without explicit/implicit twins: each scenario is its own pair.

    The common head of such suites' records (turns, av, agent): version, suite, and an id
    that obeys `ID_RULE`.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    suite: str
    scenario_id: str = Field(description=f"also its file and run folder name: {ID_RULE}")

    @field_validator("scenario_id")
    @classmethod
    def _id_rule(cls, value: str) -> str:
        return check_id(value)


class Preamble(BaseModel):
    """The spoken duty preamble played before the first turn; never scored."""

    model_config = ConfigDict(extra="forbid")

    text: str
    voice: str = "piper:joe"
    audio: str | None = None


class Suite(BaseModel):
    """Suite-level facts from `suite.yaml`."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    name: str
    suite: str = Field(description="the suite whose rules the folder follows (mpe, turns, av, agent, or an installed one)")
    assistant_name: str = "Aria"
    description: str = ""
    sample_rate: int = Field(default=16000, description="rate the audio is rendered at")
    preamble: Preamble
    scenario_glob: str = "scenarios/*.yaml"
    """relative to the suite folder; no absolute path, no `..` (every match must stay inside)"""
    generator: dict[str, str | int] | None = Field(
        default=None, description="how the suite was made (generator, version, seed, pairs); None if hand-written"
    )

    @field_validator("scenario_glob")
    @classmethod
    def _glob_inside(cls, value: str) -> str:
        return relative_pattern(value)
