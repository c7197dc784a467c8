"""A room on a virtual clock, for driving a live schedule without LiveKit.

`VirtualLoop` is an asyncio loop whose clock only moves when every task is
waiting: it then jumps straight to the next timer (the idea of livekit/agents'
tests/virtual_time.py). A minute of schedule runs in a fraction of a second,
and every time is an exact integer of ns.

`FakeRoom` satisfies `floorbench.suites.mpe.schedule.Playback`:

- `FakeWriter` plays clips at exact samples with no source queue: sample S
  leaves at ``S / sample_rate`` and the cursor is the sample playing now;
- `ScriptedModel` is the model's speech as already-segmented ``(start_ms,
  end_ms)`` on the session clock (``end_ms=None``: never stops), heard in
  20 ms frames with no network or VAD delay (script times in multiples of 20);
- `log` keeps every schedule decision as ``(kind, fields)`` with ``t_ms``.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from floorbench.records import EventKind

MS = 1_000_000
T = TypeVar("T")


class _JumpSelector(selectors.SelectSelector):
    """Never sleeps: with nothing ready, moves the loop's clock to the next timer."""

    def __init__(self, loop: VirtualLoop) -> None:
        super().__init__()
        self.loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout == 0:  # callbacks are ready: no need to ask the OS
            return []
        ready = super().select(0)
        if ready:
            return ready
        if timeout is None:
            raise RuntimeError("virtual loop: every task waits and no timer is set (the test would hang)")
        self.loop.jump()
        return []


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self.now_ns = 0
        super().__init__(selector=_JumpSelector(self))

    def time(self) -> float:
        return self.now_ns / 1e9

    def jump(self) -> None:
        timers = self._scheduled  # type: ignore[attr-defined]
        if timers:
            self.now_ns = max(self.now_ns, round(timers[0].when() * 1e9))


def run_virtual(coro: Coroutine[Any, Any, T]) -> T:
    loop = VirtualLoop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


async def sleep_until_ns(t_ns: int) -> None:
    """Sleep on the virtual clock until `t_ns`.

    Fast path: when nothing else is ready and no timer falls before `t_ns`,
    the loop would jump straight there anyway, so move the clock and yield once.
    """
    loop = asyncio.get_running_loop()
    assert isinstance(loop, VirtualLoop)
    if t_ns <= loop.now_ns:
        return
    timers = loop._scheduled  # type: ignore[attr-defined]
    if not loop._ready and (not timers or round(timers[0].when() * 1e9) > t_ns):  # type: ignore[attr-defined]
        loop.now_ns = t_ns
        await asyncio.sleep(0)
        return
    await asyncio.sleep((t_ns - loop.now_ns) / 1e9)


def now_ns() -> int:
    loop = asyncio.get_running_loop()
    assert isinstance(loop, VirtualLoop)
    return loop.now_ns


class VirtualClock:
    def now_ns(self) -> int:
        return now_ns()


@dataclass
class FakeClip:
    start: int
    end: int
    label: str
    written: asyncio.Event = field(default_factory=asyncio.Event)


class FakeWriter:
    """The humans' track with no queue: sample S leaves at exactly ``S / sample_rate``."""

    def __init__(self, sample_rate: int = 16000) -> None:
        self.sample_rate = sample_rate
        self.clips: list[FakeClip] = []
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def cursor(self) -> int:
        return now_ns() * self.sample_rate // 1_000_000_000

    def playout_ns(self, sample: int) -> int:
        return sample * 1_000_000_000 // self.sample_rate

    def schedule(self, audio: np.ndarray, at: int | None = None, label: str = "") -> FakeClip:
        last_end = max((c.end for c in self.clips if not c.written.is_set()), default=0)
        start = max(at if at is not None else 0, self.cursor, last_end)
        clip = FakeClip(start, start + len(audio), label)
        self.clips.append(clip)
        self._tasks.append(asyncio.get_running_loop().create_task(self._play(clip)))
        return clip

    async def _play(self, clip: FakeClip) -> None:
        await sleep_until_ns(self.playout_ns(clip.end))
        clip.written.set()


class ScriptedModel:
    """The model's speech segments in ms (end None: never stops), heard in 20 ms frames."""

    FRAME_NS = 20 * MS

    def __init__(self, speech: list[tuple[int, int | None]]) -> None:
        self.speech = [(s * MS, None if e is None else e * MS) for s, e in speech]

    @property
    def received_until_ns(self) -> int:
        t = now_ns()
        return t - t % self.FRAME_NS

    def _heard(self) -> list[tuple[int, int | None]]:
        ru = self.received_until_ns
        return [(s, e if e is not None and e <= ru else None) for s, e in self.speech if s <= ru]

    @property
    def last_speech_end_ns(self) -> int | None:
        ru = self.received_until_ns
        ends = [ru if e is None else e for _, e in self._heard()]
        return max(ends) if ends else None

    def speaking_at(self, t_ns: int) -> bool:
        return any(s <= t_ns and (e is None or t_ns <= e) for s, e in self._heard())

    def onset_between(self, lo_ns: int, hi_ns: int) -> int | None:
        return next((s for s, _ in self._heard() if lo_ns < s <= hi_ns), None)

    def silent_for_ns(self, now_ns: int) -> int:
        if any(e is None for _, e in self._heard()):
            return 0
        end = self.last_speech_end_ns
        return self.received_until_ns - (end if end is not None else 0)

    def speech_audio(self, lo_ns: int, hi_ns: int) -> tuple[np.ndarray, int, int] | None:
        """Silence as long as the segments overlapping [lo_ns, hi_ns] (a fake ear gives the words)."""
        ru = self.received_until_ns
        spans = [(s, ru if e is None else e) for s, e in self._heard() if s <= hi_ns and (e is None or e >= lo_ns)]
        if not spans:
            return None
        return np.zeros((spans[-1][1] - spans[0][0]) * 16000 // 1_000_000_000, dtype=np.float32), spans[0][0], spans[-1][1]

    async def wait_change(self, timeout_s: float) -> None:
        """Return when the next frame has been heard, or after `timeout_s`."""
        t = now_ns()
        next_frame = t - t % self.FRAME_NS + self.FRAME_NS
        await sleep_until_ns(min(next_frame, t + round(timeout_s * 1e9)))


class FakeRoom:
    """`schedules.Playback` on the virtual clock; `events` are the schedule's decisions."""

    def __init__(self, model: ScriptedModel, sample_rate: int = 16000) -> None:
        self.writer = FakeWriter(sample_rate)
        self.monitor = model
        self.clock = VirtualClock()
        self.events: list[tuple[EventKind, dict[str, Any]]] = []

    def log(self, kind: EventKind, **fields: object) -> None:
        fields.setdefault("t_ms", now_ns() // MS)
        fields["decided_ms"] = now_ns() // MS
        self.events.append((kind, dict(fields)))

    def starts(self) -> dict[int, int]:
        """turn id → t_ms of its first sample"""
        return {int(f["turn_id"]): int(f["t_ms"]) for k, f in self.events if k is EventKind.turn_start}

    def waits(self) -> list[dict[str, Any]]:
        return [f for k, f in self.events if k is EventKind.wait]

    def end_ms(self) -> int:
        return next(int(f["t_ms"]) for k, f in self.events if k is EventKind.end)
