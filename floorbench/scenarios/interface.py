"""What the engine reads of any suite's scenario: the interface every suite's record meets.

The run loop, its records, the model's context and the suite loader handle every
suite's scenarios alike; they read only what is declared here, never a suite's own
record class. A suite's record (suite mpe's `floorbench.suites.mpe.schema.Scenario`,
suite turns' dialogue, suite av's clip sequence, suite agent's test trial) meets
these protocols by its fields or properties; pyright checks it where a suite hands
its records to the engine.

- ``suite``: the suite whose rules the record follows (always recorded);
- ``scenario_id``: the record's id, its file's and its run folder's name;
- ``turns``: what the playback plays, in order: each with its ``id``, ``speaker``,
  ``label`` (one of the suite's labels), ``text`` and rendered ``audio``;
- ``speakers``: who speaks the turns, each with the ``voice`` the renderer speaks them in;
- ``run_fields``: what meta.json and turns.json carry beside the id, named in the suite's
  own words (suite mpe: the scenario's pair and condition); the engine writes them as
  given and never reads them, the suite's scorer does (its plug-in's ``turns_fields``
  says which turns.json must carry).

Suite-specific fields (mpe's gold answers, av's event windows, agent's steps) are the
suite's own parts' business, read through its plug-in (`floorbench.plugins`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class ScenarioTurn(Protocol):
    """One clip the playback plays."""

    @property
    def id(self) -> int: ...
    @property
    def speaker(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def audio(self) -> str | None: ...


class ScenarioSpeaker(Protocol):
    """A speaker of a scenario's turns: the renderer speaks them in its voice (and may map it)."""

    voice: str


@runtime_checkable
class ScenarioRecord(Protocol):
    """One scenario of any suite, as the engine reads it."""

    @property
    def suite(self) -> str: ...
    @property
    def scenario_id(self) -> str: ...
    @property
    def run_fields(self) -> Mapping[str, str]: ...
    @property
    def turns(self) -> Sequence[ScenarioTurn]: ...
    @property
    def speakers(self) -> Mapping[str, ScenarioSpeaker]: ...
