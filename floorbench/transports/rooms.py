"""Room names and access tokens for the participants of one scenario room.

Grants follow the participant's role: the recorder is hidden, subscribe-only
and marked as a recorder; the playback publishes only; the model both. Tokens
are JWTs signed with the API secret; they are passed to child processes on
stdin, never written into a run directory or a log.
"""

from __future__ import annotations

import re
from datetime import timedelta

from livekit import api

from floorbench.transports.server import LiveKitConnection

PLAYBACK_IDENTITY = "playback"
RECORDER_IDENTITY = "recorder"
MODEL_IDENTITY = "model"


def room_name(run_id: str, scenario_id: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_-]", "-", f"fb-{run_id}-{scenario_id}")
    return safe[:120]


def token(
    conn: LiveKitConnection,
    room: str,
    identity: str,
    *,
    publish: bool = True,
    subscribe: bool = True,
    hidden: bool = False,
    recorder: bool = False,
    ttl_s: int = 6 * 3600,
) -> str:
    grants = api.VideoGrants(
        room_join=True,
        room=room,
        can_publish=publish,
        can_subscribe=subscribe,
        can_publish_data=True,
        hidden=hidden,
        recorder=recorder,
    )
    return (
        api.AccessToken(conn.api_key, conn.api_secret)
        .with_identity(identity)
        .with_name(identity)
        .with_grants(grants)
        .with_ttl(timedelta(seconds=ttl_s))
        .to_jwt()
    )


def recorder_token(conn: LiveKitConnection, room: str) -> str:
    return token(conn, room, RECORDER_IDENTITY, publish=False, hidden=True, recorder=True)


def playback_token(conn: LiveKitConnection, room: str) -> str:
    return token(conn, room, PLAYBACK_IDENTITY, publish=True, subscribe=True)


def model_token(conn: LiveKitConnection, room: str, identity: str = MODEL_IDENTITY) -> str:
    return token(conn, room, identity, publish=True, subscribe=True)
