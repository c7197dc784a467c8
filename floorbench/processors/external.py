"""`external`: the system under test joins the room by itself.

Anything that speaks WebRTC to LiveKit can be measured: a LiveKit Agents
worker, a browser tab, a SIP bridge, a product. floorbench only creates the
room, plays the humans and records; the runner waits for this participant and
records its first audio track as the model track.

Config (YAML or ``floorbench run --model external --identity NAME [--dispatch AGENT]``):

    adapter: external
    identity: my-agent        # the participant identity to wait for
    dispatch: my-agent-name   # optional: ask LiveKit's agent dispatch to send a worker
    join_timeout_s: 60        # how long to wait for it, per scenario
    dispatch_metadata: {}     # optional: JSON handed to the dispatched job

With ``dispatch`` the worker picks its own identity (LiveKit Agents uses
``agent-<job id>``): leave ``identity`` out to accept the first participant that
is not one of floorbench's own, or give a prefix (``identity: agent-*``), or the
exact identity your worker uses (`matches`). For a person or a product joining by hand, `join_instructions`
gives the room URL and a join token (printed by the runner).
"""

from __future__ import annotations

import json
from typing import Any, Self

from pydantic import Field, model_validator

from floorbench.processors.adapter_config import AdapterSettings
from floorbench.processors.registry import Model, ModelError

FLOORBENCH_IDENTITIES = frozenset({"playback", "recorder", "humans"})
"""identities floorbench's own participants use; never taken for the model"""


class ExternalSettings(AdapterSettings):
    """The `external` config (module docstring)."""

    identity: str | None = Field(default=None, pattern=r"\S")
    dispatch: str | None = Field(default=None, pattern=r"\S")
    """a LiveKit Agents worker name to dispatch into each room"""
    join_timeout_s: float = Field(default=60.0, ge=1.0)
    dispatch_metadata: dict[str, Any] | str = Field(default_factory=dict)
    model_id: str = "external (whatever joined; set `model_id` to name it)"

    @model_validator(mode="after")
    def _who_joins(self) -> Self:
        if not self.identity and not self.dispatch:
            raise ValueError(
                "say who joins: --identity NAME (a participant that joins by itself) "
                "and/or --dispatch AGENT_NAME (a LiveKit Agents worker)"
            )
        if self.identity in FLOORBENCH_IDENTITIES:
            raise ValueError(f"identity {self.identity!r} is floorbench's own; choose another")
        return self


class ExternalParticipant(Model[ExternalSettings], name="external", joins="external"):
    """A model that joins the room by itself; floorbench waits for it and records it."""


    @property
    def identity(self) -> str | None:
        return self.settings.identity

    @property
    def dispatch(self) -> str | None:
        return self.settings.dispatch

    @property
    def join_timeout_s(self) -> float:
        return self.settings.join_timeout_s

    def processors(self) -> list:
        raise ModelError(
            f"model {self.name}: an external participant joins the room by itself; "
            "it has no pipecat processors (the runner waits for it instead)"
        )

    def matches(self, identity: str) -> bool:
        """Is this participant the model? With no `identity`, any participant not floorbench's own;
        an `identity` ending in ``*`` is a prefix (``agent-*``: a LiveKit Agents worker's ``agent-<job id>``)."""
        if identity in FLOORBENCH_IDENTITIES or identity.startswith("floorbench-"):
            return False
        if self.identity and self.identity.endswith("*"):
            return identity.startswith(self.identity[:-1])
        if self.identity:
            return identity == self.identity
        return True

    def dispatch_metadata(self, room: str, scenario_id: str | None = None) -> str:
        """The dispatched job's metadata: `dispatch_metadata` from the config, plus room and scenario."""
        return self.metadata_json(room, scenario_id)

    def metadata_json(self, room: str, scenario_id: str | None = None) -> str:
        """Metadata for the dispatched job: the configured mapping plus room and scenario."""
        meta = self.settings.dispatch_metadata
        if isinstance(meta, str):
            return meta
        return json.dumps({**meta, "room": room, "scenario_id": scenario_id})

    async def dispatch_agent(self, http_url: str, api_key: str, api_secret: str, room: str) -> str | None:
        """Ask LiveKit's agent dispatch to send the `dispatch` worker into `room`; returns the dispatch id."""
        if not self.dispatch:
            return None
        from livekit import api

        lk = api.LiveKitAPI(http_url, api_key, api_secret)
        try:
            d = await lk.agent_dispatch.create_dispatch(
                api.CreateAgentDispatchRequest(
                    agent_name=self.dispatch,
                    room=room,
                    metadata=self.metadata_json(
                        room, self.ctx.scenario.scenario_id if self.ctx.scenario else None
                    ),
                )
            )
            return d.id
        finally:
            await lk.aclose()

    def card(self) -> dict[str, Any]:
        card = super().card()
        card.update(
            identity=self.identity,
            dispatch=self.dispatch,
            join_timeout_s=self.join_timeout_s,
            model_id=self.settings.model_id,
        )
        return card


def join_token(
    api_key: str,
    api_secret: str,
    room: str,
    identity: str,
    ttl_s: int = 3600,
    name: str | None = None,
) -> str:
    """A LiveKit token for `identity` to join `room`, publish and subscribe (livekit-api)."""
    from datetime import timedelta

    from livekit import api

    return (
        api.AccessToken(api_key, api_secret)
        .with_identity(identity)
        .with_name(name or identity)
        .with_ttl(timedelta(seconds=ttl_s))
        .with_grants(api.VideoGrants(room_join=True, room=room, can_publish=True, can_subscribe=True))
        .to_jwt()
    )


def join_instructions(url: str, api_key: str, api_secret: str, room: str, identity: str) -> str:
    """What to print so a person or a product can join `room` by hand as `identity`."""
    token = join_token(api_key, api_secret, room, identity)
    return (
        f"room {room!r} at {url}\n"
        f"join as {identity!r} with this token (valid 1 h):\n{token}\n"
        f"e.g. python examples/standalone_participant.py --url {url} --token <token>"
    )
