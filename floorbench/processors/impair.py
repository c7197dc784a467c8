"""Network impairment on the model's path: added delay, jitter and loss, seeded.

These machines' kernel has no ``netem`` (``tc qdisc add … netem`` answers
"unknown qdisc kind"), so a degraded network is simulated inside the model's
own pipecat chain, where every system under test is joined to the room:

    transport.input() → ImpairStage("in") → model … → ImpairStage("out") → transport.output()

Each stage holds the audio frames of its leg: a frame that arrives at time
``t`` is passed on at ``t + delay + jitter_k`` (jitter uniform in
``[-jitter, +jitter]``, never before the previous frame: order is kept, as a
jitter buffer keeps it), and a lost frame is passed on as silence of the same
length, as a receiver's concealment would — the sample clock of the stream
is never broken, so a model that counts received samples keeps its place.
Non-audio frames pass at once. Every draw comes from a generator seeded by
(seed, leg), so a profile gives the same losses and delays on every run.

A profile is a name (`PROFILES`) or parts joined by ``+``: ``delay100``,
``jitter30``, ``loss5``, ``delay100+loss1``. `netem_status` says whether this
kernel could do it with ``tc netem`` instead; the method used is recorded
(`ImpairProfile.record`).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from floorbench.errors import FloorbenchError

Leg = Literal["in", "out"]
LEGS: tuple[Leg, ...] = ("in", "out")
METHOD = "processor stage"
"""how the impairment is applied (recorded in meta.json); `tc netem` is never used on these machines"""

PROFILES: dict[str, str] = {
    "none": "",
    "delay50": "delay50",
    "delay100": "delay100",
    "delay200": "delay200",
    "jitter30": "jitter30",
    "loss1": "loss1",
    "loss5": "loss5",
    "wan": "delay100+jitter20+loss1",
}
"""named profiles; any ``delayN``/``jitterN``/``lossP`` combination with ``+`` works too"""
_PART = re.compile(r"^(delay|jitter|loss)(\d+(?:\.\d+)?)$")
MAX_DELAY_MS = 5000
MAX_LOSS_PCT = 50.0


class ImpairError(FloorbenchError, ValueError):
    """A profile name or setting that cannot be used."""


@dataclass(frozen=True)
class ImpairProfile:
    """What the stages do to each impaired leg of the model's audio."""

    name: str
    delay_ms: int = 0
    jitter_ms: int = 0
    loss_pct: float = 0.0
    legs: tuple[Leg, ...] = LEGS
    seed: int = 0

    @property
    def active(self) -> bool:
        return bool(self.legs) and (self.delay_ms > 0 or self.jitter_ms > 0 or self.loss_pct > 0)

    def record(self) -> dict[str, Any]:
        """For meta.json: the profile, how it was applied, and whether netem was there."""
        available, why = netem_status()
        return {
            "profile": self.name,
            "delay_ms": self.delay_ms,
            "jitter_ms": self.jitter_ms,
            "loss_pct": self.loss_pct,
            "legs": list(self.legs),
            "seed": self.seed,
            "method": METHOD,
            "netem_available": available,
            "netem": why,
        }

    def spec(self) -> dict[str, Any]:
        """What the model child needs to build its stages (travels in the ModelSpec)."""
        return {k: v for k, v in self.record().items() if k in ("profile", "delay_ms", "jitter_ms", "loss_pct", "legs", "seed")}

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> ImpairProfile:
        legs: list[Leg] = [leg for leg in LEGS if leg in spec.get("legs", LEGS)]
        return cls(
            str(spec.get("profile", "custom")),
            int(spec.get("delay_ms", 0)),
            int(spec.get("jitter_ms", 0)),
            float(spec.get("loss_pct", 0.0)),
            tuple(legs),
            int(spec.get("seed", 0)),
        )


def parse_profile(text: str, legs: str = "both", seed: int = 0) -> ImpairProfile:
    """A profile from its name or ``+``-joined parts; `legs` is ``in``, ``out`` or ``both``."""
    if legs not in ("in", "out", "both"):
        raise ImpairError(f"--impair-legs {legs!r}: use in, out or both")
    body = PROFILES.get(text, text)
    values = {"delay": 0.0, "jitter": 0.0, "loss": 0.0}
    for part in filter(None, body.split("+")):
        m = _PART.match(part.strip())
        if not m:
            raise ImpairError(
                f"--impair {text!r}: unknown part {part!r}; use a name ({', '.join(PROFILES)}) "
                "or delayMS, jitterMS, lossPCT joined by '+'"
            )
        values[m.group(1)] = float(m.group(2))
    if values["delay"] > MAX_DELAY_MS or values["jitter"] > MAX_DELAY_MS:
        raise ImpairError(f"--impair {text!r}: delay and jitter are at most {MAX_DELAY_MS} ms")
    if values["loss"] > MAX_LOSS_PCT:
        raise ImpairError(f"--impair {text!r}: loss is at most {MAX_LOSS_PCT:g} %")
    chosen: list[Leg] = [leg for leg in LEGS if legs in (leg, "both")]
    return ImpairProfile(text, int(values["delay"]), int(values["jitter"]), values["loss"], tuple(chosen), seed)


def netem_status(modules: Path = Path("/proc/modules"), lib: Path = Path("/lib/modules")) -> tuple[bool, str]:
    """Could this kernel impair with ``tc netem``? (available, one-line reason). Read-only: nothing is changed."""
    try:
        if any(line.startswith("sch_netem ") for line in modules.read_text().splitlines()):
            return True, "sch_netem loaded (not used: the processor stage is portable and per model)"
    except OSError:
        pass
    import platform

    release = lib / platform.release()
    if release.is_dir() and any(release.rglob("sch_netem.ko*")):
        return True, "sch_netem module installed (not used: the processor stage is portable and per model)"
    return False, f"kernel {platform.release()} has no sch_netem; impairment runs as a processor stage"


@dataclass
class ImpairSchedule:
    """The seeded draws of one leg: per frame, lost or not, and when it is passed on (pure)."""

    profile: ImpairProfile
    leg: Leg
    frames: int = 0
    lost: int = 0
    last_release_ns: int = 0
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng([self.profile.seed, LEGS.index(self.leg)])

    def next(self, arrival_ns: int) -> tuple[int, bool]:
        """(release time, lost) for the next frame that arrived at `arrival_ns`."""
        p = self.profile
        self.frames += 1
        lost = bool(p.loss_pct > 0 and self.rng.random() * 100 < p.loss_pct)
        self.lost += lost
        jitter = self.rng.uniform(-p.jitter_ms, p.jitter_ms) if p.jitter_ms else 0.0
        delay_ns = max(0, round((p.delay_ms + jitter) * 1_000_000))
        release = max(arrival_ns + delay_ns, self.last_release_ns)
        self.last_release_ns = release
        return release, lost


def _silence_of(frame: Any) -> Any:
    """The same audio frame with its samples zeroed (a lost packet, concealed as silence)."""
    out = type(frame)(audio=bytes(len(frame.audio)), sample_rate=frame.sample_rate, num_channels=frame.num_channels)
    out.pts = frame.pts
    return out


def impair_stage(profile: ImpairProfile, leg: Leg) -> Any:
    """A pipecat FrameProcessor impairing the `leg` audio of the model (built lazily: pipecat is heavy)."""
    from pipecat.frames.frames import (
        CancelFrame,
        EndFrame,
        Frame,
        InputAudioRawFrame,
        OutputAudioRawFrame,
        StartFrame,
    )
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

    audio_type = InputAudioRawFrame if leg == "in" else OutputAudioRawFrame

    class ImpairStage(FrameProcessor):
        """Delays, jitters and drops the leg's audio frames; see floorbench.processors.impair."""

        def __init__(self) -> None:
            super().__init__(name=f"impair-{leg}")
            self.schedule = ImpairSchedule(profile, leg)
            self.held: deque[tuple[int, Frame]] = deque()
            self.wake = asyncio.Event()
            self.drained = asyncio.Event()
            self.task: asyncio.Task[None] | None = None

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
            if direction == FrameDirection.DOWNSTREAM and isinstance(frame, audio_type) and self.task is not None:
                release, lost = self.schedule.next(time.monotonic_ns())
                self.held.append((release, _silence_of(frame) if lost else frame))
                self.wake.set()
                return
            await self.push_frame(frame, direction)

        async def _release(self) -> None:
            while True:
                while not self.held:
                    self.wake.clear()
                    await self.wake.wait()
                release, frame = self.held[0]
                wait_ns = release - time.monotonic_ns()
                if wait_ns > 0:
                    await asyncio.sleep(wait_ns / 1e9)
                await self.push_frame(frame, FrameDirection.DOWNSTREAM)
                self.held.popleft()  # after the push: an EndFrame waits for it
                if not self.held:
                    self.drained.set()

    return ImpairStage()


def impair_stages(spec: dict[str, Any] | None) -> tuple[list[Any], list[Any]]:
    """(stages after the input, stages before the output) for a ModelSpec's ``impair``; none when unimpaired."""
    if not spec:
        return [], []
    profile = ImpairProfile.from_spec(spec)
    if not profile.active:
        return [], []
    ins = [impair_stage(profile, "in")] if "in" in profile.legs else []
    outs = [impair_stage(profile, "out")] if "out" in profile.legs else []
    return ins, outs
