"""What a live schedule drives: the humans' track, the model's speech as heard, a clock, a log.

Every suite's schedule (`Suite.live_schedule`, floorbench.suites.registry) is a `Schedule`
run against a `Playback`: in a LiveKit room that is `playback.PlaybackParticipant`, in
tests a fake on a virtual clock (tests/test_schedule_virtual.py). The protocols are
small so that a schedule never sees the room itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from floorbench.records import EventKind

MS = 1_000_000


class ScheduledClip(Protocol):
    """Audio placed on the humans' track (`start`/`end` are sample indexes)."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...

    @property
    def written(self) -> asyncio.Event:
        """set once the writer has passed the clip's end"""
        ...


class ClipWriter(Protocol):
    """The humans' track, whose sample index is its clock (`playback.TrackWriter`)."""

    @property
    def cursor(self) -> int:
        """index of the next sample the writer will write"""
        ...

    def schedule(self, audio: np.ndarray, at: int | None = None, label: str = "") -> ScheduledClip: ...

    def playout_ns(self, sample: int) -> int:
        """when `sample` leaves the track, on the session clock"""
        ...


class SpeechMonitor(Protocol):
    """The model's speech as received (`speech_monitor.ModelSpeechMonitor`); times in ns."""

    @property
    def received_until_ns(self) -> int: ...

    @property
    def last_speech_end_ns(self) -> int | None: ...

    def speaking_at(self, t_ns: int) -> bool: ...

    def onset_between(self, lo_ns: int, hi_ns: int) -> int | None: ...

    def silent_for_ns(self, now_ns: int) -> int: ...

    async def wait_change(self, timeout_s: float) -> None:
        """return when more model audio was analysed, or after `timeout_s`"""
        ...


class Clock(Protocol):
    def now_ns(self) -> int: ...


class Playback(Protocol):
    """What a schedule drives: `playback.PlaybackParticipant`, or a fake on a virtual clock."""

    @property
    def writer(self) -> ClipWriter: ...

    @property
    def monitor(self) -> SpeechMonitor: ...

    @property
    def clock(self) -> Clock: ...

    def log(self, kind: EventKind, **fields: object) -> None:
        """write one schedule decision to the timeline (`t_ms` defaults to now)"""
        ...


class Schedule(Protocol):
    """A suite's live policy; `run` returns when the scenario's audio is all played."""

    async def run(self, pb: Playback) -> None: ...

    def describe(self) -> dict[str, object]: ...


@dataclass(frozen=True)
class LiveRequest:
    """What a suite's `live_schedule` part is given for one scenario room."""

    scenario: Any
    """the scenario record, as the suite's `load_scenario` returned it"""
    suite: Any
    """the loaded suite (`floorbench.scenarios.validate.LoadedSuite`): header, files, `audio_path`"""
    preamble: np.ndarray | None
    """the suite's spoken preamble at the track's rate, if it has one"""
    turn_audio: dict[int, np.ndarray]
    """each turn's (clip's) audio by id, int16 at `sample_rate`"""
    sample_rate: int
    audio_s: float
    """seconds of audio the scenario plays in all"""
    options: Mapping[str, Any] = field(default_factory=dict)
    """the run's schedule options (JSON; each suite reads the ones it has)"""


@dataclass
class LivePlan:
    """A suite's answer: the schedule to play, the room's time limit, and the user's camera (or None)."""

    schedule: Schedule
    timeout_s: float
    camera: Any = None
    """`floorbench.pipelines.video.source.CameraSettings` when the suite shows the user"""
