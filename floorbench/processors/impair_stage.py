"""The impairment stage itself: a pipecat FrameProcessor (see `floorbench.processors.impair` for what it does),
and `impair_stages`, which builds a model's stages from its spec.

Kept apart so that `floorbench.processors.impair` (profiles, schedules, records) loads without pipecat;
a model's pipeline, which has pipecat loaded anyway, imports this module.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InputAudioRawFrame,
    OutputAudioRawFrame,
    StartFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from floorbench.processors.impair import (
    ImpairProfile,
    ImpairSchedule,
    Interleave,
    Leg,
    StageRecords,
    WakeupBias,
    frame_like,
    silence_of,
)


class ImpairStage(FrameProcessor):
    """Delays, jitters and drops the leg's audio frames; see floorbench.processors.impair."""

    def __init__(self, profile: ImpairProfile, leg: Leg, records_dir: Path | None, interleave: bool) -> None:
        super().__init__(name=f"impair-{leg}")
        self.profile, self.leg, self.records_dir = profile, leg, records_dir
        self.audio_type = InputAudioRawFrame if leg == "in" else OutputAudioRawFrame
        self.schedule = ImpairSchedule(profile, leg)
        self.held: deque[tuple[int, Frame, int]] = deque()
        """(due, frame, index in the records)"""
        self.wake = asyncio.Event()
        self.drained = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.records = StageRecords(leg)
        self.wakeup = WakeupBias()
        self.interleave = Interleave(0) if interleave else None
        self.keep = self.records_dir is not None  # a run keeps no per-frame records (hours of frames)

    def _write_records(self) -> None:
        if self.records_dir is not None:
            if self.interleave is not None:
                self.records.onsets = self.interleave.onsets
                self.records.interleave = {
                    "inserted": self.interleave.inserted,
                    "cut": self.interleave.cut,
                }
            try:
                self.records.write(self.records_dir)
            except OSError as e:  # the measurement reads what is there; the model goes on
                logger.warning(f"impair-{self.leg}: records not written: {e}")

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame) and self.task is None:
            self.task = self.create_task(self._release())
        if isinstance(frame, (EndFrame, CancelFrame)) and self.task is not None:
            if isinstance(frame, EndFrame) and self.held:  # a graceful end passes on what is held first
                self.drained.clear()
                await self.drained.wait()
            await self.cancel_task(self.task)
            self.task = None
            self._write_records()
        if (
            direction == FrameDirection.DOWNSTREAM
            and isinstance(frame, self.audio_type)
            and self.task is not None
        ):
            if self.interleave is not None:
                await self._interleaved(frame, time.monotonic_ns())
            else:
                self._hold(frame, time.monotonic_ns())
            return
        await self.push_frame(frame, direction)

    async def _interleaved(self, frame: Any, arrival: int) -> None:
        """Interleaved mode: insert the delay as silence before every other talkspurt, cut it after."""
        assert self.interleave is not None
        pcm = np.frombuffer(frame.audio, dtype=np.int16)
        if self.interleave.delay_samples == 0:
            self.interleave.delay_samples = (
                self.profile.delay_ms * frame.sample_rate // 1000 * frame.num_channels
            )
        peak = int(np.abs(pcm).max()) if len(pcm) else 0
        insert, cut = self.interleave.frame(peak, arrival, len(pcm))
        if insert:
            await self.push_frame(frame_like(frame, bytes(2 * insert)), FrameDirection.DOWNSTREAM)
        if cut < len(pcm):
            await self.push_frame(frame if cut == 0 else frame_like(frame, pcm[cut:].tobytes()))

    def _hold(self, frame: Any, arrival: int) -> None:
        release, lost = self.schedule.next(arrival)
        index = len(self.records.arrival_ns)
        if self.keep:
            self.records.arrival_ns.append(arrival)
            self.records.due_ns.append(release)
            self.records.passed_ns.append(0)
            self.records.lost.append(lost)
        self.held.append((release, silence_of(frame) if lost else frame, index))
        self.wake.set()

    async def _sleep_until(self, aim: int) -> None:
        """Sleep until `aim` (aimed early by the loop's learnt lateness) and learn how late it woke."""
        wait_ns = aim - time.monotonic_ns()
        if wait_ns > 0:
            await asyncio.sleep(wait_ns / 1e9)
            self.wakeup.woke(time.monotonic_ns() - aim)

    async def _release(self) -> None:
        while True:
            while not self.held:
                self.wake.clear()
                await self.wake.wait()
            release, frame, index = self.held[0]
            await self._sleep_until(release - self.wakeup.early_ns)
            if self.keep:
                self.records.passed_ns[index] = time.monotonic_ns()
            await self.push_frame(frame, FrameDirection.DOWNSTREAM)
            self.held.popleft()  # after the push: an EndFrame waits for it
            if not self.held:
                self.drained.set()


def impair_stage(
    profile: ImpairProfile, leg: Leg, records_dir: Path | None = None, interleave: bool = False
) -> ImpairStage:
    """A pipecat FrameProcessor impairing the `leg` audio of the model (`ImpairStage`).

    With `records_dir`, the stage keeps `StageRecords` and writes them there when the pipeline ends;
    with `interleave`, the profile applies to every other talkspurt (`Interleave`, measurement only).
    """
    return ImpairStage(profile, leg, records_dir, interleave)


def impair_stages(spec: dict[str, Any] | None) -> tuple[list[ImpairStage], list[ImpairStage]]:
    """(stages after the input, stages before the output) for a ModelSpec's ``impair``; none when unimpaired."""
    if not spec:
        return [], []
    profile = ImpairProfile.from_spec(spec)
    if not profile.active and not spec.get("passthrough"):  # passthrough: the stages in place, delay 0
        return [], []
    folder = Path(spec["records_dir"]) if spec.get("records_dir") else None
    mixed = bool(spec.get("interleave"))
    ins = [impair_stage(profile, "in", folder, mixed)] if "in" in profile.legs else []
    outs = [impair_stage(profile, "out", folder, mixed)] if "out" in profile.legs else []
    return ins, outs
