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

import json
import re
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
        return {
            k: v
            for k, v in self.record().items()
            if k in ("profile", "delay_ms", "jitter_ms", "loss_pct", "legs", "seed")
        }

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
    return ImpairProfile(
        text, int(values["delay"]), int(values["jitter"]), values["loss"], tuple(chosen), seed
    )


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

    def next(self, arrival_ns: int, active: bool = True, extra_ns: int = 0) -> tuple[int, bool]:
        """(release time, lost) for the next frame that arrived at `arrival_ns`.

        `active` False passes the frame unimpaired (no draw is used); `extra_ns` is added either way
        (`Interleave`'s common hold)."""
        p = self.profile
        self.frames += 1
        lost, delay_ns = False, 0
        if active:
            lost = bool(p.loss_pct > 0 and self.rng.random() * 100 < p.loss_pct)
            self.lost += lost
            jitter = self.rng.uniform(-p.jitter_ms, p.jitter_ms) if p.jitter_ms else 0.0
            delay_ns = max(0, round((p.delay_ms + jitter) * 1_000_000))
        release = max(arrival_ns + extra_ns + delay_ns, self.last_release_ns)
        self.last_release_ns = release
        return release, lost


INTERLEAVE_LEVEL = 2000
"""a frame whose peak reaches this is sound (a latency probe peaks near 13 000)"""
INTERLEAVE_QUIET_NS = 200_000_000
"""sound after this long without any starts a talkspurt"""
INTERLEAVE_SETTLE_NS = 100_000_000
"""the silence after an impaired talkspurt is cut only once it has lasted this long"""


@dataclass
class Interleave:
    """Measurement only (`floorbench latency --interleave`): the delay on every other talkspurt, in one room.

    Comparing an impaired room with an unimpaired one compares two rooms: their jitter buffers and
    the model's output queue settle differently each time (10-20 ms apart between rooms here), more
    than the ±5 ms to be shown. Here one chain does both, probe by probe, and the queues after the
    stage never change state: at the first frame of every other talkspurt the stage *inserts* the
    delay as silence (the supply after it never pauses, so no queue runs dry and settles anew),
    and it *cuts* as much silence out of the quiet that follows, before the next talkspurt. An
    impaired talkspurt is heard exactly `delay_ms` later than it would have been (the profile's
    delay in samples, no timer involved) and the next one is back in place. Delay only: jitter and
    loss are not interleaved.
    """

    delay_samples: int
    on: bool = False
    owed: int = 0
    """samples inserted and not cut again yet"""
    last_loud_ns: int | None = None
    onsets: list[tuple[int, bool]] = field(default_factory=list)
    """(arrival on the monotonic clock, impaired) of each talkspurt's first frame"""
    inserted: int = 0
    cut: int = 0

    def frame(self, peak: int, arrival_ns: int, samples: int) -> tuple[int, int]:
        """For one frame: (silent samples to insert before it, samples to cut from its start)."""
        loud = peak >= INTERLEAVE_LEVEL
        last = self.last_loud_ns
        onset = loud and (last is None or arrival_ns - last >= INTERLEAVE_QUIET_NS)
        if loud:
            self.last_loud_ns = arrival_ns
        if onset:
            self.on = len(self.onsets) % 2 == 1
            self.onsets.append((arrival_ns, self.on))
            if self.on and self.owed == 0:
                self.owed = self.delay_samples
                self.inserted += self.delay_samples
                return self.delay_samples, 0
            return 0, 0
        if not loud and self.owed > 0 and last is not None and arrival_ns - last >= INTERLEAVE_SETTLE_NS:
            cut = min(self.owed, samples)
            self.owed -= cut
            self.cut += cut
            return 0, cut
        return 0, 0


@dataclass
class StageRecords:
    """What one stage did to each audio frame, on the monotonic clock: when it arrived, when it was
    due (arrival + the drawn delay, kept in order) and when it was actually handed on.

    The handed-on minus arrival time is the delay the stage really added; handed-on minus due is
    its own lateness (the event loop's). Written as ``impair-{leg}.json`` when the model spec names a
    folder (`floorbench latency` does), so a measured rise can be told apart from the stage's own share.
    """

    leg: Leg
    arrival_ns: list[int] = field(default_factory=list)
    due_ns: list[int] = field(default_factory=list)
    passed_ns: list[int] = field(default_factory=list)
    lost: list[bool] = field(default_factory=list)
    onsets: list[tuple[int, bool]] = field(default_factory=list)
    """interleaved mode: (arrival ns, impaired) of each talkspurt"""
    interleave: dict[str, int] = field(default_factory=dict)
    """interleaved mode: samples of silence inserted and cut"""

    def summary(self) -> dict[str, Any]:
        passed = np.array(self.passed_ns, dtype=np.int64)
        done = passed > 0  # 0: still held when the pipeline ended
        n = int(done.sum())
        added = passed[done] - np.array(self.arrival_ns, dtype=np.int64)[done]
        late = passed[done] - np.array(self.due_ns, dtype=np.int64)[done]

        def ms(v: np.ndarray) -> dict[str, float]:
            if not len(v):
                return {}
            return {
                k: round(float(np.percentile(v, q)) / 1e6, 3)
                for k, q in (("min", 0), ("p50", 50), ("p95", 95), ("max", 100))
            }

        return {
            "leg": self.leg,
            "frames": len(self.arrival_ns),
            "passed": n,
            "lost": int(sum(self.lost)),
            "lost_pct": round(100 * sum(self.lost) / len(self.lost), 3) if self.lost else 0.0,
            "added_ms": ms(added),
            "late_ms": ms(late),
            "onsets": [[t, on] for t, on in self.onsets],
            "interleave": self.interleave,
        }

    def write(self, folder: Path) -> None:
        body = {
            **self.summary(),
            "arrival_ns": self.arrival_ns,
            "due_ns": self.due_ns,
            "passed_ns": self.passed_ns,
        }
        (folder / f"impair-{self.leg}.json").write_text(json.dumps(body) + "\n")


def read_stage_records(folder: Path) -> dict[str, Any]:
    """The summaries of the stages' records in `folder` (``impair-in.json``, ``impair-out.json``), by leg."""
    out: dict[str, Any] = {}
    for leg in LEGS:
        path = folder / f"impair-{leg}.json"
        if path.is_file():
            body = json.loads(path.read_text())
            out[leg] = {k: v for k, v in body.items() if not k.endswith("_ns")}
    return out


@dataclass
class WakeupBias:
    """How late the event loop wakes a timed sleep, learnt as it runs, so that the stage can aim that much early.

    ``asyncio.sleep`` wakes after its time, never before: epoll's timeout is rounded up to the
    millisecond and the loop adds its own turn, about 0.9 ms p50 measured here. Uncorrected, every
    frame would be held that much longer than the profile says; aiming early by the running mean
    of the lateness centres the delay the stage really adds on the profile's own.
    """

    early_ns: int = 0
    weight: float = 0.1
    cap_ns: int = 5_000_000
    """never aims more than this early (a stalled loop is not a timer's rounding)"""

    def woke(self, late_ns: int) -> None:
        """A sleep aimed at some time woke `late_ns` after it."""
        self.early_ns = int(
            min(self.cap_ns, max(0.0, self.early_ns + self.weight * (late_ns - self.early_ns)))
        )


def frame_like(frame: Any, audio: bytes) -> Any:
    """An audio frame of the same type, rate and channels as `frame`, holding `audio`."""
    out = type(frame)(audio=audio, sample_rate=frame.sample_rate, num_channels=frame.num_channels)
    out.pts = frame.pts
    return out


def silence_of(frame: Any) -> Any:
    """The same audio frame with its samples zeroed (a lost packet, concealed as silence)."""
    out = type(frame)(
        audio=bytes(len(frame.audio)), sample_rate=frame.sample_rate, num_channels=frame.num_channels
    )
    out.pts = frame.pts
    return out
