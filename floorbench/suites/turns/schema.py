"""Scenario records of suite `turns` (docs/suites/turns.md): one user, the model, labelled clips.

A turns scenario is the user's track as a list of clips, each labelled with
the event it makes (`floorbench.suites.turns.rules.TurnEvent`): speech ending in a
mid-turn pause (`pause`, with `pause_ms`), speech ending a turn (`eot`), a
barge-in (`interrupt`), a backchannel, or a background voice (`noise`). Clips
timed against the model (`offset_ms`) start that long after the model's
speech onset in reply to the last end of turn, as heard in the room.

The suite folder is the same as mpe's (suite.yaml, scenarios/*.yaml, audio/)
and the render path is the same: a clip has ``id``, ``speaker``, ``text`` and
``audio`` like an mpe turn, and its ``run_fields`` (``pair_id``/``condition``) are the
scenario id and conversation type, so the runner, the renderer and turns.json treat both
suites alike. The suite's rules are checked in
`floorbench.suites.turns.validate`, one line per problem.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from floorbench.scenarios.schema import OwnPairScenario, Speaker, UngradedClip
from floorbench.suites.turns.rules import TurnEvent

SUITE_KIND = "turns"


class TurnsClip(UngradedClip):
    """One clip on the user's track, spoken by 'U' (the user) or 'B' (a background voice, for noise);
    its label says what its boundary means for the floor."""

    label: TurnEvent
    text: str
    audio: str | None = Field(default=None, description="rendered audio, relative to the suite folder")
    pause_ms: int | None = Field(default=None, description="pause: silence before the user goes on (400–1500)")
    offset_ms: int | None = Field(
        default=None,
        description="interrupt/backchannel (noise optional): start this long after the model's onset",
    )
    reply: str | None = Field(
        default=None, description="eot/interrupt: what the oracle says when it takes the floor"
    )


class TurnsScenario(OwnPairScenario):
    """One dyadic conversation: one simulated user (and perhaps a background voice) and the model."""

    suite: str = SUITE_KIND
    conversation_type: str = Field(description="casual, task-oriented, instructional, storytelling or argument")
    language: str = Field(default="en", description="what the conversation is held in (floorbench.speech.languages)")
    speakers: dict[str, Speaker]
    turns: list[TurnsClip]
    meta: dict[str, str | int] = Field(default_factory=dict, description="provenance; never read by scoring")

    @field_validator("language")
    @classmethod
    def _known(cls, value: str) -> str:
        from floorbench.speech.languages import language

        return language(value, "language").code

    @property
    def condition(self) -> str:
        """The runner's and turns.json's condition: the conversation type."""
        return self.conversation_type

    @property
    def run_fields(self) -> dict[str, str]:
        """What meta.json and turns.json carry beside the id: the dialogue is its own pair; the scorer reads
        the condition."""
        return {"pair_id": self.scenario_id, "condition": self.condition}
