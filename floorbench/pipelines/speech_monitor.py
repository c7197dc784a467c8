"""The model's speech as heard by the playback participant: live Silero VAD.

What the live schedule means by "the model is speaking" is decided here, on
the model's audio as it arrives in the room (never the model's own events),
with the same segment rules as scoring. Edges go to the timeline.
"""

from __future__ import annotations

import asyncio
import contextlib

import numpy as np
from livekit import rtc

from floorbench.audio.vad import VAD_RATE, WINDOW, SileroStream, VadRules
from floorbench.clock import SessionClock
from floorbench.records import EventKind, TimelineEvent, TimelineWriter


class ModelSpeechMonitor:
    """Live Silero VAD on the model's received audio; the schedule's notion of "speaking".

    Times are on the session clock at reception: ``recv_start + n / 16 kHz`` with
    `recv_start` the running minimum of arrival − nominal time (arrivals are
    late, never early). A segment counts once it has lasted `min_speech_ms`
    (its onset time is its first speech window); it ends after `merge_gap_ms`
    without speech, at its last speech window — the same rules as scoring.
    """

    def __init__(
        self, clock: SessionClock, timeline: TimelineWriter, rules: VadRules = VadRules()
    ) -> None:
        self.clock = clock
        self.timeline = timeline
        self.rules = rules
        self.vad = SileroStream(1)
        self.samples = 0
        self.recv_start_ns: int | None = None
        self._carry = np.zeros(0, dtype=np.float32)
        self._window_index = 0
        self.in_speech = False
        """raw hysteresis state of the last window"""
        self._run_start: int | None = None
        self.segment_open = False
        self.segment_start_ns: int | None = None
        self.last_speech_end_ns: int | None = None
        self.onsets_ns: list[int] = []
        self.segments: list[tuple[int, int | None]] = []
        self.changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stream: rtc.AudioStream | None = None

    @property
    def received_until_ns(self) -> int:
        if self.recv_start_ns is None:
            return -1
        return self.recv_start_ns + self.samples * 1_000_000_000 // VAD_RATE

    def _t(self, window_index: int) -> int:
        assert self.recv_start_ns is not None
        return self.recv_start_ns + window_index * WINDOW * 1_000_000_000 // VAD_RATE

    def attach(self, track: rtc.RemoteAudioTrack) -> None:
        if self._task is not None:
            self._task.cancel()
        self._stream = rtc.AudioStream(track, sample_rate=VAD_RATE, num_channels=1)
        self._task = asyncio.create_task(self._consume(self._stream), name="model-vad")

    async def _consume(self, stream: rtc.AudioStream) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            async for ev in stream:
                self.feed(np.frombuffer(ev.frame.data, dtype=np.int16), self.clock.now_ns())

    def feed(self, pcm: np.ndarray, arrival_ns: int) -> None:
        self.samples += len(pcm)
        nominal = self.samples * 1_000_000_000 // VAD_RATE
        off = arrival_ns - nominal
        if self.recv_start_ns is None or off < self.recv_start_ns:
            self.recv_start_ns = off
        x = np.concatenate([self._carry, pcm.astype(np.float32) / 32768.0])
        n = len(x) // WINDOW
        for i in range(n):
            p = float(self.vad(x[i * WINDOW : (i + 1) * WINDOW])[0])
            self._step(p, self._window_index)
            self._window_index += 1
        self._carry = x[n * WINDOW :]

    def _step(self, p: float, w: int) -> None:
        r = self.rules
        if not self.in_speech and p >= r.threshold:
            self.in_speech = True
            self._run_start = w
        elif self.in_speech and p < r.neg_threshold:
            self.in_speech = False
        t_end = self._t(w + 1)
        if self.in_speech:
            assert self._run_start is not None
            self.last_speech_end_ns = t_end
            if not self.segment_open and (w + 1 - self._run_start) * WINDOW * 1000 // VAD_RATE >= r.min_speech_ms:
                self.segment_open = True
                self.segment_start_ns = self._t(self._run_start)
                self.onsets_ns.append(self.segment_start_ns)
                self.segments.append((self.segment_start_ns, None))
                self._event("onset", self.segment_start_ns)
        elif self.segment_open and self.last_speech_end_ns is not None:
            if t_end - self.last_speech_end_ns >= r.merge_gap_ms * 1_000_000:
                self.segment_open = False
                start = self.segments[-1][0]
                self.segments[-1] = (start, self.last_speech_end_ns)
                self._event("offset", self.last_speech_end_ns)
        self.changed.set()

    def _event(self, edge: str, t_ns: int) -> None:
        self.timeline.write(
            TimelineEvent.of(
                t_ns // 1_000_000,
                EventKind.model_vad,
                "playback",
                reason=edge,
                decided_ms=self.clock.now_ms(),
            )
        )

    def speaking_at(self, t_ns: int) -> bool:
        """Was a (counted) segment, or a raw speech run, covering `t_ns`?"""
        for s, e in self.segments:
            if s <= t_ns and (e is None or t_ns <= e):
                return True
        return False

    def onset_between(self, lo_ns: int, hi_ns: int) -> int | None:
        for t in self.onsets_ns:
            if lo_ns < t <= hi_ns:
                return t
        return None

    def silent_for_ns(self, now_ns: int) -> int:
        """How long no speech has been heard, as of the received audio."""
        if self.in_speech:
            return 0
        if self.last_speech_end_ns is None:
            return now_ns - (self.recv_start_ns or now_ns)
        return max(0, self.received_until_ns - self.last_speech_end_ns)

    async def wait_change(self, timeout_s: float) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout_s)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._stream is not None:
            with contextlib.suppress(Exception):
                await self._stream.aclose()
