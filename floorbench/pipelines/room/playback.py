"""The playback participant: publishes the simulated humans, listens to the model.

Two halves:

- `TrackWriter` — the single writer task of one published track. It writes
  20 ms frames without a break (silence when nothing is scheduled; a longer
  block when it has fallen behind, `TrackWriter._frames_due`), so the
  track's sample index *is* its clock: a clip scheduled at sample S plays at
  ``P0 + S / sr``, where P0 is when the source started draining. Clips are
  placed at exact sample positions (a 500 ms gap is exactly 8 000 samples at
  16 kHz), and everything sent is also written to ``NAME.sent.wav`` so the
  recording can be cross-correlated with what left.
- `ModelSpeechMonitor` (in `floorbench.pipelines.room.speech_monitor`) — Silero
  VAD on the model's audio as received here, which is what the schedule's
  "the model is speaking" means (never the model's own events).

The schedule itself (what to play when) is a replaceable policy:
`floorbench.suites.mpe.schedule`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from livekit import rtc

from floorbench.audio.files import PcmAppender
from floorbench.clock import SessionClock, TrackFit, fit_track
from floorbench.pipelines.room.participant import RoomParticipant, ScenarioRoom, cancel_and_wait, settle
from floorbench.pipelines.room.speech_monitor import ModelSpeechMonitor
from floorbench.pipelines.video.source import CameraSettings, UserCamera
from floorbench.records import EventKind, TimelineEvent, write_json_atomic
from floorbench.speech.acoustics import LiveAcoustics
from floorbench.transports.rooms import PLAYBACK_IDENTITY, playback_token

log = logging.getLogger(__name__)

FRAME_MS = 20
"""one write a frame: 50 wake-ups a second per track (the source itself drains 10 ms every 10 ms)"""
CATCH_UP_FRAMES = 4
"""at most this many frames in one write when the writer has fallen behind (see `TrackWriter._frames_due`)"""
MS = 1_000_000


@dataclass
class Clip:
    """Audio scheduled on a track; `start`/`end` are sample indexes on that track."""

    audio: np.ndarray
    start: int
    label: str = ""
    clean: np.ndarray | None = None
    """the clean clip `audio` was degraded from (acoustic conditions); None: `audio` is clean"""
    started: asyncio.Event = field(default_factory=asyncio.Event)
    written: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def end(self) -> int:
        return self.start + len(self.audio)


class TrackWriter:
    """One writer task per published track; keeps the source `queue_ms` ahead of playout."""

    def __init__(
        self,
        source: rtc.AudioSource,
        sample_rate: int,
        clock: SessionClock,
        sent_path: Path,
        queue_ms: int,
        on_underrun: Callable[[int, int], None] | None = None,
        acoustics: LiveAcoustics | None = None,
    ) -> None:
        self.source = source
        self.acoustics = acoustics
        """degraded humans (floorbench.speech.acoustics): the bed is added under every frame, and the clean
        track is written beside the sent one (``NAME.clean.wav``, the same samples)"""
        self.on_underrun = on_underrun
        """called with (sample, slip_ns) when the source ran dry"""
        self.sample_rate = sample_rate
        self.clock = clock
        self.queue_ms = queue_ms
        self.frame = sample_rate * FRAME_MS // 1000
        self.cursor = 0
        """index of the next sample to write"""
        self.pending: deque[Clip] = deque()
        self.sent = PcmAppender(sent_path, sample_rate)
        self.clean: PcmAppender | None = None
        if acoustics is not None:
            self.clean = PcmAppender(sent_path.with_name(sent_path.name.replace(".sent.", ".clean.")), sample_rate)
        self._sent_tsv = sent_path.with_suffix(".tsv").open("a", encoding="utf-8")
        """``NAME.sent.tsv``: per frame its first sample and the playout time it leaves at, slips included
        (the sender's clock of the track; floorbench.pipelines.room.sender_log)"""
        self.first_write_ns: int | None = None
        self.returns_ns: list[int] = []
        self.sample_ends: list[int] = []
        self.underruns = 0
        self.slipped_ns = 0
        """how long the source ran dry in all (the sum of the underruns' slips)"""
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()

    # -- scheduling -----------------------------------------------------------
    def schedule(self, audio: np.ndarray, at: int | None = None, label: str = "") -> Clip:
        """Queue `audio` to start at sample `at` (or as soon as possible).

        A start in the past (the writer already passed it) starts at the cursor:
        the caller sees the real start in `clip.start` and records it.
        """
        last_end = self.pending[-1].end if self.pending else self.cursor
        start = max(at if at is not None else 0, self.cursor, last_end)
        clean = self.acoustics.clean(audio) if self.acoustics is not None else None
        clip = Clip(np.asarray(audio, dtype=np.int16), start, label, clean)
        self.pending.append(clip)
        return clip

    def sample_at(self, t_ns: int) -> int | None:
        """The sample that leaves the source at session time `t_ns` (None before the first write)."""
        if self.first_write_ns is None:
            return None
        return (t_ns - self.first_write_ns) * self.sample_rate // 1_000_000_000

    def playout_ns(self, sample: int) -> int:
        """Online estimate of when `sample` leaves the source (session clock)."""
        if self.first_write_ns is None:
            return self.clock.now_ns() + self.queue_ms * 1_000_000
        return self.first_write_ns + sample * 1_000_000_000 // self.sample_rate

    def fit(self) -> TrackFit:
        """Post-hoc fit of P0 from capture returns: sample ``n_end - Q`` drains at return time."""
        lead = self.queue_ms * self.sample_rate // 1000
        ends = np.array(self.sample_ends, dtype=np.int64)
        rets = np.array(self.returns_ns, dtype=np.int64)
        # the first returns come at once while the queue fills; use only the held ones
        held = ends > lead + self.frame
        if held.sum() < 10:
            return fit_track(ends, rets, self.sample_rate)
        return fit_track(ends[held] - lead, rets[held], self.sample_rate)

    # -- the writer task ------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="playback-writer")

    def _frames_due(self) -> int:
        """How many frames to write now: one, or more when the source's lead fell under half its queue.

        Each write is one round trip through the SDK and the event loop. On a loop busy with many
        rooms an iteration can take 20–50 ms for a while, and one frame per iteration then
        drains the source until it runs dry (measured: eight rooms on 2 cores, no single stall over
        90 ms, yet every playback underran). Writing the shortfall as one block refills the lead in
        one round trip. The samples and their times are the same either way: the track is still
        written without a break, and ``NAME.sent.tsv`` logs each block's first sample and time.
        """
        if self.first_write_ns is None:
            return 1
        lead_ns = self.playout_ns(self.cursor) - self.clock.now_ns()
        short_ns = self.queue_ms * MS // 2 - lead_ns
        if short_ns <= 0:
            return 1
        return int(min(CATCH_UP_FRAMES, 1 + short_ns // (FRAME_MS * MS)))

    async def _run(self) -> None:
        sr = self.sample_rate
        while not self._stop.is_set():
            frames = self._frames_due()
            size = self.frame * frames
            buf = np.zeros(size, dtype=np.int16)
            clean = np.zeros(size, dtype=np.int16)
            lo, hi = self.cursor, self.cursor + size
            while self.pending and self.pending[0].end <= lo:
                done = self.pending.popleft()
                done.written.set()
            for clip in self.pending:
                if clip.start >= hi:
                    break
                a, b = max(lo, clip.start), min(hi, clip.end)
                if a < b:
                    buf[a - lo : b - lo] = clip.audio[a - clip.start : b - clip.start]
                    if clip.clean is not None:
                        clean[a - lo : b - lo] = clip.clean[a - clip.start : b - clip.start]
                    if a == clip.start:
                        clip.started.set()
            out = buf if self.acoustics is None else self.acoustics.add_bed(buf, lo)
            frame = rtc.AudioFrame(out.tobytes(), sr, 1, size)
            call_ns = self.clock.now_ns()
            if self.first_write_ns is None:
                self.first_write_ns = call_ns
            elif call_ns > self.playout_ns(self.cursor) + 20_000_000:
                # the source ran dry and sent its own silence: our sample clock slipped
                slip = call_ns - self.playout_ns(self.cursor)
                self.first_write_ns += slip
                self.underruns += 1
                self.slipped_ns += slip
                log.warning("playback underrun: %.1f ms", slip / 1e6)
                if self.on_underrun is not None:
                    self.on_underrun(self.cursor, slip)
            self._sent_tsv.write(f"f\t{lo}\t{self.playout_ns(lo)}\t{size}\t{call_ns}\n")
            await self.source.capture_frame(frame)
            self.sent.write(out)
            if self.clean is not None:
                self.clean.write(clean)
            self.cursor = hi
            if frames == 1:  # a catch-up block returns before its lead drained: not a point for `fit`
                self.returns_ns.append(self.clock.now_ns())
                self.sample_ends.append(hi)
            while self.pending and self.pending[0].end <= self.cursor:
                self.pending.popleft().written.set()

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await asyncio.wait({self._task}, timeout=2.0)  # ends after the frame in hand
            await cancel_and_wait(self._task, 2.0, "playback: track writer")
        for clip in self.pending:
            clip.written.set()
        self._sent_tsv.close()
        await asyncio.to_thread(self.sent.finalize)  # off the event loop: other rooms keep playing
        if self.clean is not None:
            await asyncio.to_thread(self.clean.finalize)


class PlaybackParticipant(RoomParticipant):
    """Publishes the humans' track and hears the model; the schedule drives it."""

    def __init__(
        self,
        where: ScenarioRoom,
        sample_rate: int,
        is_model: Callable[[str], bool],
        queue_ms: int = 200,
        track_name: str = "humans",
        listen: bool = True,
        camera: CameraSettings | None = None,
        acoustics: LiveAcoustics | None = None,
    ) -> None:
        if queue_ms % 10:
            raise ValueError("queue_ms must be a multiple of 10 (LiveKit aborts otherwise)")
        super().__init__(where, playback_token, sample_rate)
        self.is_model = is_model
        """which participant is the model (a name, or any non-floorbench one for dispatched agents)"""
        self.queue_ms = queue_ms
        self.track_name = track_name
        self.source = rtc.AudioSource(sample_rate, 1, queue_size_ms=queue_ms)
        self.writer = TrackWriter(
            self.source,
            sample_rate,
            self.clock,
            self.out_dir / f"{track_name}.sent.wav",
            queue_ms,
            on_underrun=lambda sample, slip: self.log(EventKind.underrun, sample=sample, slip_ms=slip // 1_000_000),
            acoustics=acoustics,
        )
        self.monitor = ModelSpeechMonitor(self.clock, self.timeline)
        echo = acoustics.echo if acoustics is not None else None
        if echo is not None:  # the agent's audio, as heard here, back into the caller's track (docs/acoustics.md)
            echo.bind(self.writer.sample_at, lambda: self.writer.cursor)
            self.monitor.taps.append(echo.heard)
        self.video: UserCamera | None = None
        """the user's camera (suite av): frames on this track's clock (floorbench.pipelines.video.source)"""
        if camera is not None:
            self.video = UserCamera(camera, self.clock.now_ns, self.writer.playout_ns, self.out_dir)
        self.listen = listen
        """subscribe to the model's track and feed the monitor from it; False when the
        monitor is fed by the recorder (`Recorder.model_audio_listeners`): one receive path"""
        self.model_audio = asyncio.Event()
        self.subscribed_by: set[str] = set()
        self._sub_event = asyncio.Event()

    async def start(self, timeout_s: float = 10.0) -> None:
        room = self.room
        self.on("track_subscribed", self._track_subscribed)
        self.on("local_track_subscribed", self._local_track_subscribed)
        await self.connect(timeout_s, auto_subscribe=self.listen)
        track = rtc.LocalAudioTrack.create_audio_track(self.track_name, self.source)
        opts = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE, dtx=False, red=False)
        await asyncio.wait_for(room.local_participant.publish_track(track, opts), timeout_s)
        if self.video is not None:
            await self.video.publish(room.local_participant, timeout_s)
        self.writer.start()
        if self.video is not None:
            self.video.start()
        if not self.listen:
            return
        for p in room.remote_participants.values():
            if self.is_model(p.identity):
                for pub in p.track_publications.values():
                    if isinstance(pub.track, rtc.RemoteAudioTrack):
                        self.monitor.attach(pub.track)
                        self.model_audio.set()

    def _track_subscribed(self, track: rtc.Track, pub: rtc.RemoteTrackPublication, p: rtc.RemoteParticipant) -> None:
        if self.listen and self.is_model(p.identity) and isinstance(track, rtc.RemoteAudioTrack):
            self.monitor.attach(track)
            self.model_audio.set()

    def _local_track_subscribed(self, track: rtc.Track) -> None:
        self._sub_event.set()

    async def wait_subscribed(self, timeout_s: float) -> bool:
        try:
            await asyncio.wait_for(self._sub_event.wait(), timeout_s)
            return True
        except TimeoutError:
            return False

    async def stop(self) -> None:
        if self.video is not None:
            await settle(self.video.stop(), None, "playback: stopping the video track")
        await self.writer.stop()
        await self.monitor.stop()
        echo = self.writer.acoustics.echo if self.writer.acoustics is not None else None
        if echo is not None:  # what the echo path realised, beside the tracks it shaped
            write_json_atomic(self.out_dir / f"{self.track_name}.echo.json", echo.record())
        await self.leave()
        await settle(self.source.aclose(), None, "playback: closing the audio source")

    async def send_data(self, message: dict[str, object]) -> None:
        """A JSON data message to the room, reliable (a phone leg's DTMF request: `floorbench.phone.leg`)."""
        import json

        await self.room.local_participant.publish_data(json.dumps(message).encode(), reliable=True)

    def log(self, kind: EventKind, **fields: object) -> None:
        """A schedule decision; `t_ms` defaults to now, `decided_ms` is always now."""
        now = self.clock.now_ms()
        t_ms = int(fields.pop("t_ms", now))  # type: ignore[arg-type]
        self.timeline.write(TimelineEvent.of(t_ms, kind, PLAYBACK_IDENTITY, decided_ms=now, **fields))
