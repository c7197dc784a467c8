"""Scenario records for the `mpe` suite (Duplex-MPE), as stored on disk in YAML.

A *suite* is a folder:

    suite.yaml              suite-level facts: name, assistant name, duty preamble, voices
    scenarios/*.yaml        one file per scenario (one condition of one pair)
    audio/...               rendered turn and preamble audio (paths are relative to the suite)

These are plain versioned pydantic models that import nothing heavy, so the CLI
and the scoring package can read them without pulling in LiveKit or pipecat.
The constraints of suite mpe (docs/suites/mpe.md) are *not* enforced here but in
`floorbench.scenarios.validate`, so that one bad file yields one clear error
naming the file, scenario and turn instead of a pydantic trace.
"""

from __future__ import annotations

import re
import warnings
from enum import StrEnum
from pathlib import PurePosixPath, PureWindowsPath

from pydantic import BaseModel, ConfigDict, Field, field_validator

# the confinement rule lives in floorbench.paths; re-exported here, where its callers import it from
from floorbench.paths import PathEscapeError as PathEscapeError
from floorbench.paths import inside as inside

SCHEMA_VERSION = 1

ID_RULE = "1-128 characters A-Z a-z 0-9 . _ -, starting with a letter or digit, no '..'"
"""the rule every scenario_id and pair_id obeys: each becomes a file or folder name"""
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


class Label(StrEnum):
    """What a human turn asks of Aria (docs/suites/mpe.md)."""

    T = "T"
    """A direct, unresolved request to Aria: she must answer correctly."""
    N1 = "N1"
    """Mentions Aria but asks nothing of her: stay silent."""
    N2 = "N2"
    """Addressed to another human or another device: stay silent."""
    N3 = "N3"
    """Self-talk, no addressee: stay silent."""
    N4Q = "N4Q"
    """A question to Aria that a human will resolve: start answering."""
    N4R = "N4R"
    """The resolution of the preceding N4Q: yield and stay silent."""


SILENT_LABELS = frozenset({Label.N1, Label.N2, Label.N3})


class Condition(StrEnum):
    """How the `T` request addresses Aria."""

    explicit = "explicit"
    """The request names Aria."""
    implicit = "implicit"
    """Context makes clear Aria should answer; her name is not said."""


with warnings.catch_warnings():
    # `register` is the benchmark's own word for the speaking register; pydantic
    # warns that it shadows a deprecated BaseModel attribute, which is harmless here.
    warnings.filterwarnings("ignore", message='Field name "register"', category=UserWarning)

    class Attributes(BaseModel):
        """The five scenario attributes, each drawn from a fixed vocabulary."""

        model_config = ConfigDict(extra="forbid")

        location: str
        activity: str
        relationship: str
        device_context: str
        register: str


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


class Turn(Clip):
    """One human turn of suite mpe; exactly one label; its speaker is one of the humans A-D."""

    label: Label
    text: str
    audio: str | None = Field(
        default=None, description="path of the rendered audio, relative to the suite folder"
    )
    gold: str | None = Field(default=None, description="gold answer; required on T")
    gold_aliases: list[str] = Field(
        default_factory=list, description="other phrasings that also count as the gold answer"
    )
    attempt: str | None = Field(
        default=None,
        description="for N4Q: what an eager assistant would start to say (oracle uses it)",
    )


class Scenario(BaseModel):
    """One scenario = one condition of one scenario pair."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    suite: str = "mpe"
    """this record is suite mpe's own (its scenario files record ``suite: mpe``)"""
    scenario_id: str = Field(description=f"the scenario's id, also its file and run folder name: {ID_RULE}")
    pair_id: str = Field(description=f"the pair's id: {ID_RULE}")
    condition: Condition
    attributes: Attributes
    speakers: dict[str, Speaker]
    turns: list[Turn]
    differs: list[int] = Field(
        default_factory=list,
        description="ids of the turns whose text differs from the paired scenario",
    )
    meta: dict[str, str | int] = Field(
        default_factory=dict,
        description="provenance, e.g. the generator and task family; never read by scoring",
    )

    @field_validator("scenario_id", "pair_id")
    @classmethod
    def _id_rule(cls, value: str) -> str:
        return check_id(value)

    def turn(self, turn_id: int) -> Turn:
        for t in self.turns:
            if t.id == turn_id:
                return t
        raise KeyError(turn_id)

    @property
    def request(self) -> Turn:
        """The single `T` turn (validated scenarios have exactly one)."""
        return next(t for t in self.turns if t.label is Label.T)


class OwnPairScenario(BaseModel):
    """A scenario of a suite without explicit/implicit twins: each scenario is its own pair.

    The common head of such suites' records (turns, av): version, suite, an id
    that obeys `ID_RULE`, and `pair_id` the same id, as the runner and turns.json read it.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    suite: str
    scenario_id: str = Field(description=f"also its file and run folder name: {ID_RULE}")

    @field_validator("scenario_id")
    @classmethod
    def _id_rule(cls, value: str) -> str:
        return check_id(value)

    @property
    def pair_id(self) -> str:
        """The runner's and turns.json's pair id: the scenario is its own pair."""
        return self.scenario_id


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
