"""The model's speech as heard by the playback participant: live Silero VAD.

What the live schedule means by "the model is speaking" is decided here, on
the model's audio as it arrives in the room (never the model's own events),
with the same segment rules as scoring. Edges go to the timeline.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable

import numpy as np
from livekit import rtc

from floorbench.audio.vad import VAD_RATE, WINDOW, WINDOW_MS, Edge, SpeechSegmenter, VadRules, VadStream
from floorbench.clock import SessionClock
from floorbench.pipelines.room.participant import cancel_and_wait, settle
from floorbench.records import EventKind, TimelineEvent, TimelineWriter
from floorbench.transports.ffi_routing import routed_audio_stream


class ModelSpeechMonitor:
    """Live Silero VAD on the model's received audio; the schedule's notion of "speaking".

    Times are on the session clock at reception: ``recv_start + n / 16 kHz`` with
    `recv_start` the running minimum of arrival − nominal time (arrivals are
    late, never early). Segments follow `SpeechSegmenter`, the same code as
    scoring: a run counts once it has lasted `min_speech_ms` (its onset time is
    its first speech window), shorter runs are dropped, and a segment ends
    after `merge_gap_ms` with no kept speech, at its last kept speech window.

    The last `keep_s` of received audio is kept, so that a caller can listen to
    what the model just said (`speech_audio`: suite agent's branching steps).
    """

    KEEP_S = 120
    PAD_MS = 100
    """speech_audio widens the speech by this much (VAD's 32 ms grid clips first and last phonemes)"""

    def __init__(
        self,
        clock: SessionClock,
        timeline: TimelineWriter,
        rules: VadRules = VadRules(),
        vad: VadStream | None = None,
    ) -> None:
        self.clock = clock
        self.timeline = timeline
        self.rules = rules
        self.vad = vad if vad is not None else VadStream()
        self.segmenter = SpeechSegmenter(rules, WINDOW_MS)
        self.recv_start_ns: int | None = None
        self.onsets_ns: list[int] = []
        self.segments: list[tuple[int, int | None]] = []
        self.changed = asyncio.Event()
        self._heard: deque[tuple[int, np.ndarray]] = deque()
        """(index of its first sample, the samples) of the last `KEEP_S` of received audio"""
        self._task: asyncio.Task[None] | None = None
        self._stream: rtc.AudioStream | None = None
        self.taps: list[Callable[[np.ndarray, int | None], None]] = []
        """called with each received frame and when its stream's sample 0 arrived (`recv_start_ns`): the echo
        path of `--acoustics …+echo` (floorbench.speech.echo)"""

    @property
    def samples(self) -> int:
        """model samples received so far (16 kHz)"""
        return self.vad.samples

    @property
    def in_speech(self) -> bool:
        """raw hysteresis state of the last window (a run in progress, counted or not yet)"""
        return self.segmenter.in_speech

    @property
    def segment_open(self) -> bool:
        return self.segmenter.segment_open

    @property
    def last_speech_end_ns(self) -> int | None:
        """end of the last counted speech window (short dropped runs don't count)"""
        end = self.segmenter.speech_end
        return None if end is None else self._t(end)

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
        self._stream = routed_audio_stream(track, VAD_RATE)
        self._task = asyncio.create_task(self._consume(self._stream), name="model-vad")

    async def _consume(self, stream: rtc.AudioStream) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            async for ev in stream:
                self.feed(np.frombuffer(ev.frame.data, dtype=np.int16), self.clock.now_ns())

    def feed(self, pcm: np.ndarray, arrival_ns: int) -> None:
        nominal = (self.samples + len(pcm)) * 1_000_000_000 // VAD_RATE
        off = arrival_ns - nominal
        if self.recv_start_ns is None or off < self.recv_start_ns:
            self.recv_start_ns = off
        self._heard.append((self.samples, np.array(pcm, dtype=np.int16)))
        for tap in self.taps:
            tap(pcm, self.recv_start_ns)
        while self._heard and self._heard[0][0] + len(self._heard[0][1]) < self.samples - self.KEEP_S * VAD_RATE:
            self._heard.popleft()
        for w in self.vad.feed(pcm):
            for edge in self.segmenter.push(w.probability):
                self._on_edge(edge)
            self.changed.set()

    def _on_edge(self, edge: Edge) -> None:
        t_ns = self._t(edge.window)
        if edge.kind == "onset":
            self.onsets_ns.append(t_ns)
            self.segments.append((t_ns, None))
        else:
            self.segments[-1] = (self.segments[-1][0], t_ns)
        self._event(edge.kind, t_ns)

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
        """Was a counted segment (open or closed) covering `t_ns`?"""
        for s, e in self.segments:
            if s <= t_ns and (e is None or t_ns <= e):
                return True
        return False

    def onset_between(self, lo_ns: int, hi_ns: int) -> int | None:
        """The first counted onset in ``(lo_ns, hi_ns]``."""
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

    def speech_audio(self, lo_ns: int, hi_ns: int) -> tuple[np.ndarray, int, int] | None:
        """The model's received speech of every counted segment overlapping [lo_ns, hi_ns] — whole
        segments, an open one to its last speech heard — widened by `PAD_MS`, as float32 at 16 kHz,
        with the segments' span (ns); None when no segment overlaps."""
        last = self.last_speech_end_ns
        heard = self.received_until_ns if last is None else last
        spans = [(s, max(s, heard) if e is None else e) for s, e in self.segments
                 if s <= hi_ns and (e is None or e >= lo_ns)]
        if not spans or self.recv_start_ns is None:
            return None
        pad = self.PAD_MS * 1_000_000
        a = max(0, (spans[0][0] - pad - self.recv_start_ns) * VAD_RATE // 1_000_000_000)
        b = (spans[-1][1] + pad - self.recv_start_ns) * VAD_RATE // 1_000_000_000
        parts = [pcm[max(0, a - at) : max(0, b - at)] for at, pcm in self._heard if at < b and at + len(pcm) > a]
        audio = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)
        return audio.astype(np.float32) / 32768.0, spans[0][0], spans[-1][1]

    async def wait_change(self, timeout_s: float) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout_s)

    async def stop(self) -> None:
        await cancel_and_wait(self._task, 5.0, "model speech monitor")
        if self._stream is not None:
            await settle(self._stream.aclose(), None, "model speech monitor: closing the stream")
