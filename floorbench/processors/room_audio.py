"""The frame routing every listening model processor shares: it consumes the room's audio.

A model hears the room as ``InputAudioRawFrame``s and must not pass them on
(the output transport would play the room back into it). It starts its own
work when the pipeline starts and stops it before the end frame leaves, so
that nothing it owns outlives the pipeline. Everything else passes through.

`ModelLinkProcessor` adds what every bridge to a model outside the pipeline
shares (the WebSocket servers of `duplex_base`, the WebRTC products of
`webrtc`): the link is run as a task from the start, reported up and down to
the model process, lost at most once, and closed once at the end.
"""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

from pipecat.frames.frames import CancelFrame, EndFrame, Frame, InputAudioRawFrame, StartFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor


class RoomAudioProcessor(FrameProcessor):
    """Base of the cascade and the WebSocket bridges; subclasses fill in the three hooks."""

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            await self.on_start()
        elif isinstance(frame, InputAudioRawFrame):
            await self.on_room_audio(frame)  # consumed: the room's audio is not played back
        elif isinstance(frame, EndFrame | CancelFrame):
            await self.on_stop()
            await self.push_frame(frame, direction)
        else:
            await self.push_frame(frame, direction)

    async def on_start(self) -> None:
        """The pipeline started (the StartFrame has been passed on): start listening."""

    async def on_room_audio(self, frame: InputAudioRawFrame) -> None:
        """One frame of the room's audio."""

    async def on_stop(self) -> None:
        """The pipeline ends or is cancelled: stop everything started, before the frame goes on."""


class ModelLinkProcessor(RoomAudioProcessor):
    """Base of the bridges to a model outside the pipeline: a link that comes up, may drop, and is closed.

    It says when the link is up and when it drops (``reports_connection``; the
    ``on_model_connected`` / ``on_model_disconnected`` events), so that the model
    process fails a scenario whose model was not connected for all of it. A link
    lost mid-session is one error line and one disconnected event, once; closing
    at the end is no loss. Subclasses run the link in `_run` (a task from the
    pipeline's start; `_ready` set while it is up) and shut it in `close_link`.
    """

    reports_connection: ClassVar[bool] = True
    """the model process waits for ``on_model_connected`` before the scenario counts"""
    lost_fix: ClassVar[str] = "check the model server (its log says why) and run again"
    """what the error line of a lost link tells the user to do"""
    link_kind: ClassVar[str] = "link"
    """the link task's name after the processor's"""

    def __init__(self, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self._ready = asyncio.Event()
        """set while the link is up"""
        self._closing = False
        self._lost_reported = False
        self._tasks: list[asyncio.Task] = []
        self._register_event_handler("on_model_connected")
        self._register_event_handler("on_model_disconnected")

    async def on_start(self) -> None:
        self._t0 = time.monotonic()
        self._tasks.append(self.create_task(self._run(), name=f"{self.name}-{self.link_kind}"))

    async def on_stop(self) -> None:
        await self._close()

    async def _run(self) -> None:
        """Bring the link up, call ``on_model_connected``, and carry audio until it ends."""
        raise NotImplementedError

    async def close_link(self) -> None:
        """Shut the link and cancel the tasks (called once, at the end)."""

    async def _lost(self, what: str) -> None:
        """The link is gone mid-session: one error, one disconnected event (once)."""
        if self._closing or self._lost_reported:
            return
        self._lost_reported = True
        self._ready.clear()
        reason = f"{self.name}: {what}; {self.lost_fix}"
        await self.push_error(reason)
        await self._call_event_handler("on_model_disconnected", reason)

    async def _close(self) -> None:
        if self._closing:
            return
        self._closing = True
        await self.close_link()
