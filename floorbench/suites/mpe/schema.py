"""Suite mpe's scenario record (Duplex-MPE), as stored on disk in YAML: its labels, turns, pairs.

One scenario is one condition (explicit or implicit) of one pair; each human turn
carries exactly one label (docs/suites/mpe.md). The record only parses; the suite's
rules (one `T` per scenario, twins that differ only where they say) are checked in
floorbench/suites/mpe/validate.py, so that one bad file yields one clear error naming
the file, scenario and turn instead of a pydantic trace. The parts every suite shares
(the id rule, the suite header, speakers, clips) are the engine's, in
floorbench/scenarios/schema.py.
"""

from __future__ import annotations

import warnings
from enum import StrEnum

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from floorbench.scenarios.schema import ID_RULE, SCHEMA_VERSION, Clip, Speaker, check_id


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
    language: str = Field(default="en", description="what the humans speak (floorbench.speech.languages); the "
                          "run records it and the scorer hears and judges in it")

    @field_validator("scenario_id", "pair_id")
    @classmethod
    def _id_rule(cls, value: str) -> str:
        return check_id(value)

    @field_validator("language")
    @classmethod
    def _known(cls, value: str) -> str:
        from floorbench.speech.languages import language

        return language(value, "language").code

    @model_serializer(mode="wrap")
    def _english_unsaid(self, handler: SerializerFunctionWrapHandler) -> dict:
        """English, the default, is left out: English files read and write as before languages existed."""
        d = handler(self)
        if d.get("language") == "en":
            d.pop("language")
        return d

    @property
    def run_fields(self) -> dict[str, str]:
        """What meta.json and turns.json carry beside the id: the pair and the condition (the scorer groups by both)."""
        return {"pair_id": self.pair_id, "condition": str(self.condition)}

    def turn(self, turn_id: int) -> Turn:
        for t in self.turns:
            if t.id == turn_id:
                return t
        raise KeyError(turn_id)

    @property
    def request(self) -> Turn:
        """The single `T` turn (validated scenarios have exactly one)."""
        return next(t for t in self.turns if t.label is Label.T)
