"""The frame routing every listening model processor shares: it consumes the room's audio.

A model hears the room as ``InputAudioRawFrame``s and must not pass them on
(the output transport would play the room back into it). It starts its own
work when the pipeline starts and stops it before the end frame leaves, so
that nothing it owns outlives the pipeline. Everything else passes through.
"""

from __future__ import annotations

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
