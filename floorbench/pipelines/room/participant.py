"""What every floorbench participant in a scenario room shares: the room, joining, leaving.

The recorder and the playback participant differ in what they do with the
room's audio, not in how they are in the room: each owns one `rtc.Room`,
registers its handlers before it connects (typed by event name, so a handler
with the wrong arguments is a type error, not a silent no-op), connects with
a deadline using a token whose grants fit its role, and leaves without letting
a failing close hide the recording.

Teardown never swallows an error unseen: `cancel_and_wait` and `settle` log
(logging.warning) whatever a task or a close raised, and carry on, so one
broken stream cannot keep the others' files from being finalised.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from livekit import rtc

from floorbench.clock import SessionClock
from floorbench.records import TimelineWriter
from floorbench.transports.server import LiveKitConnection

log = logging.getLogger(__name__)

Result = TypeVar("Result")

ParticipantEvent = Literal["participant_connected", "participant_disconnected"]
RemoteTrackEvent = Literal["track_subscribed", "track_unsubscribed"]
RoomEvent = Literal[ParticipantEvent, RemoteTrackEvent, "local_track_subscribed", "data_received"]
"""The room events floorbench listens to (a subset of livekit-rtc's `EventTypes`)."""

TokenFor = Callable[[LiveKitConnection, str], str]
"""Mints the participant's token for (server, room): its grants are its role."""


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def cancel_and_wait(
    tasks: asyncio.Task[Any] | Iterable[asyncio.Task[Any]] | None, timeout_s: float, what: str
) -> None:
    """Cancel `tasks`, wait up to `timeout_s` for them to end, log what they raised.

    A task that ends by cancellation is what was asked for; any other exception
    is logged as a warning naming `what`, and so is a task that outlives the
    wait (it is left behind rather than blocking the teardown).
    """
    group = [tasks] if isinstance(tasks, asyncio.Task) else list(tasks or ())
    if not group:
        return
    for task in group:
        task.cancel()
    done, pending = await asyncio.wait(group, timeout=timeout_s)
    for task in pending:
        log.warning("%s: task %s still running %.1f s after cancel; left behind", what, task.get_name(), timeout_s)
    for task in done:
        if task.cancelled():
            continue
        exc = task.exception()
        if exc is not None:
            log.warning("%s: task %s ended with %s; teardown goes on", what, task.get_name(), _describe(exc))


async def settle(aw: Awaitable[Result], timeout_s: float | None, what: str) -> Result | None:
    """Await one close step (a disconnect, an `aclose`); on failure or timeout log it and return None."""
    try:
        return await asyncio.wait_for(aw, timeout_s)
    except Exception as e:
        log.warning("%s failed (%s); teardown goes on", what, _describe(e))
        return None


@dataclass(frozen=True)
class ScenarioRoom:
    """One scenario's room as its participants share it: where it is, where files go, one clock."""

    conn: LiveKitConnection
    name: str
    out_dir: Path
    """the scenario folder"""
    clock: SessionClock
    timeline: TimelineWriter


class RoomParticipant:
    """One participant floorbench itself puts in a scenario room."""

    def __init__(self, where: ScenarioRoom, token_for: TokenFor, sample_rate: int) -> None:
        self.conn = where.conn
        self.room_name = where.name
        self.out_dir = where.out_dir
        self.clock = where.clock
        self.timeline = where.timeline
        self.token_for = token_for
        self.sample_rate = sample_rate
        self.room = rtc.Room()

    @overload
    def on(self, event: ParticipantEvent, handler: Callable[[rtc.RemoteParticipant], None]) -> None: ...
    @overload
    def on(
        self,
        event: RemoteTrackEvent,
        handler: Callable[[rtc.Track, rtc.RemoteTrackPublication, rtc.RemoteParticipant], None],
    ) -> None: ...
    @overload
    def on(self, event: Literal["local_track_subscribed"], handler: Callable[[rtc.Track], None]) -> None: ...
    @overload
    def on(self, event: Literal["data_received"], handler: Callable[[rtc.DataPacket], None]) -> None: ...
    def on(self, event: RoomEvent, handler: Callable[..., None]) -> None:
        """Register `handler` for `event`; do it before `connect` so no early event is missed."""
        self.room.on(event, handler)

    async def connect(self, timeout_s: float, auto_subscribe: bool = True) -> None:
        """Join the room or raise TimeoutError after `timeout_s`.

        `auto_subscribe=False` for a participant that only sends: every subscribed
        track costs a WebRTC receive path (decode, jitter buffer, 100 events/s)."""
        await asyncio.wait_for(
            self.room.connect(
                self.conn.url,
                self.token_for(self.conn, self.room_name),
                options=rtc.RoomOptions(auto_subscribe=auto_subscribe),
            ),
            timeout_s,
        )

    async def leave(self, timeout_s: float = 5.0) -> None:
        """Disconnect; a failed or slow disconnect is logged, never raised."""
        await settle(self.room.disconnect(), timeout_s, f"{self.room_name}: leaving the room")
