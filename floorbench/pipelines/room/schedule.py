"""What a live schedule drives: the humans' track, the model's speech as heard, a clock, a log.

Every suite's schedule (`Suite.live_schedule`, floorbench.plugins) is a `Schedule`
run against a `Playback`: in a LiveKit room that is `playback.PlaybackParticipant`, in
tests a fake on a virtual clock (tests/test_schedule_virtual.py). The protocols are
small so that a schedule never sees the room itself.

`SuiteSchedule` holds the steps every suite's schedule shares (the lead-in, waiting
until the model's audio has been heard, its onset, its endpoint, the last line) and
`LiveKnobs` the operational knobs they all have; a suite writes only its own policy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

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

    def speech_audio(self, lo_ns: int, hi_ns: int) -> tuple[np.ndarray, int, int] | None:
        """the model's speech in every segment overlapping [lo_ns, hi_ns] (float32, 16 kHz) and its
        span in ns; None: it said nothing there"""
        ...

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


@dataclass(frozen=True, kw_only=True)
class LiveKnobs:
    """The operational knobs of every suite's schedule (not benchmark rules).

    A suite's config is a subclass that adds its ``rules`` (the scorer's record) as its
    first field and any knobs of its own (keyword-only here, so ``Config(rules)`` works).
    """

    tail_ms: int = 3000
    """how long the room stays open after the last clip (longer while the model speaks)"""
    vad_margin_ms: int = 250
    """how long past a deadline to wait for model audio to arrive and be analysed"""
    lead_in_ms: int = 500
    """silence before the first clip (or preamble), after every participant has subscribed"""


S = TypeVar("S")
C = TypeVar("C", bound=LiveKnobs)


def sample_at(pb: Playback, sr: int, t_ns: int) -> int:
    """The track sample that leaves at `t_ns` (the cursor if that moment has passed), at `sr` Hz."""
    cur = pb.writer.cursor
    ahead = t_ns - pb.writer.playout_ns(cur)
    return cur + max(0, ahead) * sr // 1_000_000_000


async def until_heard(pb: Playback, t_ns: int) -> None:
    """Return once model audio up to `t_ns` has been heard and analysed.

    If no model audio arrives at all (no track, dead model), give up one
    second past `t_ns` on the session clock: silence is what we heard.
    """
    mon = pb.monitor
    while mon.received_until_ns < t_ns:
        if pb.clock.now_ns() > t_ns + 1000 * MS:
            return
        await mon.wait_change(0.05)


async def wait_onset(pb: Playback, margin_ns: int, from_ns: int, deadline_ns: int) -> tuple[int | None, str]:
    """The model's speech onset after `from_ns`, awaited until `deadline_ns` as heard (plus `margin_ns` for the
    VAD), and why: ``already_speaking`` (the onset is `from_ns`), ``onset``, or None and ``no_onset``."""
    mon = pb.monitor
    await until_heard(pb, from_ns + margin_ns)
    if mon.speaking_at(from_ns):
        return from_ns, "already_speaking"
    while True:
        onset = mon.onset_between(from_ns, deadline_ns)
        if onset is not None:
            return onset, "onset"
        if mon.received_until_ns >= deadline_ns + margin_ns or pb.clock.now_ns() > deadline_ns + 1000 * MS:
            return None, "no_onset"
        await mon.wait_change(0.05)


class SuiteSchedule(Generic[S, C]):
    """The steps every suite's live schedule takes, written once; a suite adds its policy (`run`).

    ``SuiteSchedule[Scenario, Config]``: the suite's scenario record and its config (a `LiveKnobs`).

    Decisions about the model are taken on the reception clock: a deadline is judged
    only once model audio up to it (plus `vad_margin_ms` for the VAD) has been heard,
    so a late packet cannot turn an onset into "no onset".
    """

    policy: ClassVar[str] = ""
    """the suite's name for its policy (`describe`, meta.json's ``schedule``)"""

    def __init__(
        self, scenario: S, clip_audio: dict[int, np.ndarray], sample_rate: int, config: C | None = None
    ) -> None:
        self.scenario = scenario
        self.clip_audio = clip_audio
        """each clip's (turn's) audio by id, int16 at `sample_rate`"""
        self.sr = sample_rate
        self.cfg: C = config if config is not None else self.default_config()

    def default_config(self) -> C:
        """The suite's config when none is given: its rules and knobs at their defaults."""
        raise NotImplementedError

    def describe(self) -> dict[str, object]:
        """The policy, the suite's rules, its own knobs, then the shared ones (meta.json's ``schedule``)."""
        own = asdict(self.cfg)
        shared = {f.name: own.pop(f.name) for f in fields(LiveKnobs)}
        return {"policy": self.policy, "rules": own.pop("rules"), **own, **shared}

    def samples(self, ms: int) -> int:
        return ms * self.sr // 1000

    def lead_in(self, pb: Playback) -> int:
        """The sample the first clip (or preamble) starts at: `lead_in_ms` after the writer's cursor."""
        return pb.writer.cursor + self.samples(self.cfg.lead_in_ms)

    def sample_at(self, pb: Playback, t_ns: int) -> int:
        """The track sample that leaves at `t_ns` (the cursor if that moment has passed)."""
        return sample_at(pb, self.sr, t_ns)

    async def until_heard(self, pb: Playback, t_ns: int) -> None:
        """Return once model audio up to `t_ns` has been heard (`until_heard`)."""
        await until_heard(pb, t_ns)

    async def wait_onset(self, pb: Playback, from_ns: int, deadline_ns: int) -> tuple[int | None, str]:
        """The model's speech onset after `from_ns`, awaited until `deadline_ns` as heard (`wait_onset`)."""
        return await wait_onset(pb, self.cfg.vad_margin_ms * MS, from_ns, deadline_ns)

    async def wait_endpoint(self, pb: Playback, endpoint_ms: int, cap_ns: int) -> str:
        """Wait for `endpoint_ms` of model silence, or the cap; say which ended it (``endpoint``, ``cap``)."""
        mon = pb.monitor
        while True:
            now = pb.clock.now_ns()
            if mon.silent_for_ns(now) >= endpoint_ms * MS:
                return "endpoint"
            if now >= cap_ns:
                return "cap"
            await mon.wait_change(0.05)

    def log_end(self, pb: Playback) -> None:
        """The timeline's last schedule line: the track's end."""
        w = pb.writer
        pb.log(EventKind.end, sample=w.cursor, t_ms=w.playout_ns(w.cursor) // MS)


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
    env: dict[str, str] = field(default_factory=dict)
    """what the model is told besides its config (a test's mock tools' URLs): the model process's environment,
    a dispatched agent's job metadata, the `--print-join` line"""
    close: Callable[[Path], Awaitable[None]] | None = None
    """called once the room has ended, with the scenario's folder (whatever ended it): a suite's own services
    stop and write their records there"""
