"""The recorder participant: hidden, subscribe-only, one file per track, sample-accurate times.

For every audio track in the room it keeps the cumulative sample index and the
arrival time of each frame (``tracks/NAME.frames.tsv``), appends the PCM to a
part file, and at the end writes ``NAME.wav`` atomically with a `TrackInfo`
whose start time is the low-percentile fit of those arrivals (floorbench.clock).
`AudioStream` is paced by a synthetic playout device and fills loss with
concealment, so a stream is continuous; only a re-published track leaves a
gap, which is filled with silence from the arrival times — never collapsed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from livekit import rtc

from floorbench.audio.files import PcmAppender
from floorbench.clock import SessionClock, TrackFit, fit_track
from floorbench.pipelines.room.neteq import NetEqSample, sample_of, summarize
from floorbench.pipelines.room.participant import RoomParticipant, ScenarioRoom, cancel_and_wait, settle
from floorbench.pipelines.video.sink import VideoTracks
from floorbench.records import EventKind, TimelineEvent, TrackInfo
from floorbench.transports.ffi_routing import routed_audio_stream
from floorbench.transports.rooms import recorder_token

log = logging.getLogger(__name__)

STATS_EVERY_S = 2.0
RECEIVE_FRAME_MS = 20
"""frames asked of each received track: half the event-loop wake-ups of the SDK's 10 ms per room and track
(the samples and their count are the same; a frame's arrival is that of its last 10 ms)"""
"""how often the recorder reads each track's jitter-buffer counters (floorbench.pipelines.room.neteq)"""


@dataclass
class TrackRecording:
    """One recorded track: PCM appender plus the frame log used for the time fit."""

    name: str
    participant: str
    sample_rate: int
    out_dir: Path
    appender: PcmAppender = field(init=False)
    sample_ends: list[int] = field(default_factory=list)
    arrivals_ns: list[int] = field(default_factory=list)
    gaps_filled: int = 0

    def __post_init__(self) -> None:
        self.appender = PcmAppender(self.out_dir / f"{self.name}.wav", self.sample_rate)
        (self.out_dir / "tracks").mkdir(parents=True, exist_ok=True)
        # started empty, like the part file: a killed attempt's log is that attempt's (resume.archive_attempt)
        self._frames_f = (self.out_dir / "tracks" / f"{self.name}.frames.tsv").open("w")

    @property
    def samples(self) -> int:
        return self.appender.samples

    def add(self, pcm: np.ndarray, arrival_ns: int) -> None:
        self.appender.write(pcm)
        n = self.appender.samples
        self.sample_ends.append(n)
        self.arrivals_ns.append(arrival_ns)
        self._frames_f.write(f"{n}\t{arrival_ns}\n")

    def fill_gap_until(self, arrival_ns: int, frame_samples: int) -> int:
        """Before the first frame of a re-subscribed stream: silence for the time that passed.

        Returns the number of silent samples written."""
        if not self.arrivals_ns:
            return 0
        fit = self.fit()
        expected_start = fit.sample_at(arrival_ns) - frame_samples
        missing = expected_start - self.samples
        if missing > 0:
            self.appender.write_silence(missing)
            self.gaps_filled += missing
        return max(0, missing)

    def fit(self) -> TrackFit:
        return fit_track(np.array(self.sample_ends), np.array(self.arrivals_ns), self.sample_rate)

    def finalize(self, clock: SessionClock) -> TrackInfo:
        self._frames_f.close()
        path = self.appender.finalize()
        if self.sample_ends:
            fit = self.fit()
            start_ns, p50, p99 = fit.start_ns, fit.residual_p50_us, fit.residual_p99_us
        else:
            start_ns, p50, p99 = 0, 0, 0
        return TrackInfo(
            name=self.name,
            participant=self.participant,
            file=path.name,
            sample_rate=self.sample_rate,
            samples=self.samples,
            start_ms=start_ns // 1_000_000,
            start_ns=start_ns,
            fit_residual_p50_us=p50,
            fit_residual_p99_us=p99,
            gaps_filled=self.gaps_filled,
        )


class Recorder(RoomParticipant):
    """Joins the room hidden, records every audio track, reports participant events."""

    def __init__(
        self,
        where: ScenarioRoom,
        sample_rate: int = 16000,
        track_names: dict[str, str] | None = None,
        is_model: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__(where, recorder_token, sample_rate)
        self.track_names = track_names or {}
        self.is_model = is_model
        """the model's track is always recorded as `model.wav`, whatever its identity"""
        self.tracks: dict[str, TrackRecording] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._streams: dict[str, rtc.AudioStream] = {}
        self.stats_taken = False
        self._subscribed: dict[str, rtc.RemoteAudioTrack] = {}
        self.listeners: list[Callable[[str, str], None]] = []
        """called with (event, identity): joined, left, audio_subscribed, audio_unsubscribed"""
        self.present: set[str] = set()
        self.left_reasons: dict[str, str | None] = {}
        """why each participant that left was disconnected, as the server said (``CLIENT_INITIATED``,
        ``SIGNAL_CLOSE``, ...; None when it gave no reason)"""
        self.audio_from: set[str] = set()
        self.video = VideoTracks(self.out_dir, self.clock)
        """every video track, as NAME.video.mkv + NAME.video.frames.jsonl (floorbench.pipelines.video.sink)"""
        self.video_infos: dict[str, dict[str, object]] = {}
        """meta.json's ``video.tracks``, filled by `stop`"""
        self.neteq: dict[str, list[NetEqSample]] = {}
        """per track, its jitter-buffer counters every `STATS_EVERY_S` and once at the end"""
        self._stats_task: asyncio.Task[None] | None = None
        self.model_audio_listeners: list[Callable[[np.ndarray, int], None]] = []
        """called with (pcm, arrival_ns) for every frame of the model's track as recorded
        (gap silence included): the playback's speech monitor listens here, so the model's
        audio is received and decoded once per room, not once per listener"""

    def _emit(self, event: str, identity: str, **extra: object) -> None:
        self.timeline.write(
            TimelineEvent.of(
                self.clock.now_ms(), EventKind.participant, "recorder", reason=f"{event}:{identity}", **extra
            )
        )
        for fn in list(self.listeners):
            try:
                fn(event, identity)
            except Exception:
                log.exception("recorder listener failed")

    async def start(self, timeout_s: float = 10.0) -> None:
        self.on("participant_connected", self._joined)
        self.on("participant_disconnected", self._left)
        self.on("track_subscribed", self._track_subscribed)
        self.on("track_unsubscribed", self._track_unsubscribed)
        self.on("data_received", self._data)
        await self.connect(timeout_s)
        for p in self.room.remote_participants.values():
            self.present.add(p.identity)
            self._emit("joined", p.identity)
        self._stats_task = asyncio.create_task(self._sample_stats(), name="recorder-stats")

    # -- room events ------------------------------------------------------------
    def _joined(self, p: rtc.RemoteParticipant) -> None:
        self.present.add(p.identity)
        self._emit("joined", p.identity)

    def _left(self, p: rtc.RemoteParticipant) -> None:
        self.present.discard(p.identity)
        reason = p.disconnect_reason
        name = rtc.DisconnectReason.Name(reason) if reason is not None else None
        self.left_reasons[p.identity] = name
        self._emit("left", p.identity, **({"disconnect_reason": name} if name else {}))

    def _track_subscribed(self, track: rtc.Track, pub: rtc.RemoteTrackPublication, p: rtc.RemoteParticipant) -> None:
        if track.kind == rtc.TrackKind.KIND_VIDEO:
            name = f"{self.track_name(p.identity)}.video"
            self.video.start(track, name, p.identity)
            self._emit("video_subscribed", p.identity, track=name)
            return
        if track.kind != rtc.TrackKind.KIND_AUDIO:
            return
        assert isinstance(track, rtc.RemoteAudioTrack)
        self._start_track(track, p.identity)

    def _track_unsubscribed(
        self, track: rtc.Track, pub: rtc.RemoteTrackPublication, p: rtc.RemoteParticipant
    ) -> None:
        if track.kind == rtc.TrackKind.KIND_AUDIO:
            self.audio_from.discard(p.identity)
            self._emit("audio_unsubscribed", p.identity)

    def _data(self, packet: rtc.DataPacket) -> None:
        who = packet.participant.identity if packet.participant else "server"
        try:
            text = packet.data.decode("utf-8")[:2000]
        except UnicodeDecodeError:
            text = f"<{len(packet.data)} bytes>"
        self.timeline.write(
            TimelineEvent.of(self.clock.now_ms(), EventKind.marker, who, reason=packet.topic or "data", payload=text)
        )

    def track_name(self, identity: str) -> str:
        if identity in self.track_names:
            return self.track_names[identity]
        if self.is_model is not None and self.is_model(identity):
            return "model"
        return "".join(
            c if c.isalnum() or c in "-_" else "_" for c in identity
        )

    def _start_track(self, track: rtc.RemoteAudioTrack, identity: str) -> None:
        name = self.track_name(identity)
        old = self._tasks.pop(name, None)
        if old is not None:
            old.cancel()
        rec = self.tracks.get(name)
        if rec is None:
            rec = TrackRecording(name, identity, self.sample_rate, self.out_dir)
            self.tracks[name] = rec
        stream = routed_audio_stream(track, self.sample_rate, frame_size_ms=RECEIVE_FRAME_MS)
        self._streams[name] = stream
        self._subscribed[name] = track
        self._tasks[name] = asyncio.create_task(self._consume(stream, rec), name=f"record-{name}")
        self.audio_from.add(identity)
        self._emit("audio_subscribed", identity, track=name)

    async def _consume(self, stream: rtc.AudioStream, rec: TrackRecording) -> None:
        first = True
        listeners = self.model_audio_listeners if rec.name == "model" else []
        try:
            async for ev in stream:
                arrival = self.clock.now_ns()
                frame = ev.frame
                pcm = np.frombuffer(frame.data, dtype=np.int16)
                if first:
                    gap = rec.fill_gap_until(arrival, len(pcm))
                    first = False
                    if gap:
                        self._tell(listeners, np.zeros(gap, np.int16), arrival)
                rec.add(pcm, arrival)
                self._tell(listeners, pcm, arrival)
        except asyncio.CancelledError:
            pass
        finally:
            await settle(stream.aclose(), None, f"recorder: closing the {rec.name} stream")

    @staticmethod
    def _tell(listeners: list[Callable[[np.ndarray, int], None]], pcm: np.ndarray, arrival_ns: int) -> None:
        for fn in listeners:
            try:
                fn(pcm, arrival_ns)
            except Exception:
                log.exception("model audio listener failed")

    async def _sample_stats(self) -> None:
        """Every track's jitter-buffer counters every `STATS_EVERY_S` (one FFI request per track)."""
        while True:
            await asyncio.sleep(STATS_EVERY_S)
            for name, track in list(self._subscribed.items()):
                try:
                    stats = await asyncio.wait_for(track.get_stats(), 2.0)
                except Exception:
                    continue
                self._keep_sample(name, stats)

    def _keep_sample(self, name: str, stats: Sequence[object]) -> None:
        sample = sample_of(stats, self.clock.now_ms())
        if sample is not None:
            self.neteq.setdefault(name, []).append(sample)

    def receivers(self) -> dict[str, dict[str, object]]:
        """meta.json ``receivers``: per track, its jitter buffer's counters and the stretch they bound."""
        return {name: summarize(samples) for name, samples in sorted(self.neteq.items())}

    async def transport_stats(self) -> None:
        """One `transport` timeline event per track with the inbound RTP stats we can read.

        Taken once, while everyone is still in the room: after a participant left, its track's
        stats often come back without the inbound-rtp entry (seen on a busy machine). They are
        also the last of the periodic jitter-buffer samples (`receivers`).
        """
        if self.stats_taken:
            return
        self.stats_taken = True
        if self._stats_task is not None:
            await cancel_and_wait([self._stats_task], 2.0, "recorder: stats sampler")
        for name, track in self._subscribed.items():
            try:
                stats = await asyncio.wait_for(track.get_stats(), 2.0)
            except Exception as e:
                self.timeline.write(
                    TimelineEvent(
                        t_ms=self.clock.now_ms(),
                        kind=EventKind.transport,
                        source="recorder",
                        reason=f"stats unavailable for {name}: {type(e).__name__}",
                    )
                )
                continue
            self._keep_sample(name, list(stats))
            summary: dict[str, object] = {}
            for s in stats:
                if s.HasField("inbound_rtp"):
                    inbound = s.inbound_rtp.inbound
                    summary = {
                        "jitter_buffer_delay_s": getattr(inbound, "jitter_buffer_delay", None),
                        "jitter_buffer_emitted_count": getattr(inbound, "jitter_buffer_emitted_count", None),
                        "concealed_samples": getattr(inbound, "concealed_samples", None),
                        "inserted_samples_for_deceleration": getattr(
                            inbound, "inserted_samples_for_deceleration", None
                        ),
                        "removed_samples_for_acceleration": getattr(
                            inbound, "removed_samples_for_acceleration", None
                        ),
                        "packets_lost": getattr(s.inbound_rtp.received, "packets_lost", None),
                        "jitter_s": getattr(s.inbound_rtp.received, "jitter", None),
                    }
            self.timeline.write(
                TimelineEvent.of(
                    self.clock.now_ms(), EventKind.transport, "recorder", reason=f"inbound_rtp:{name}", stats=summary
                )
            )

    async def stop(self) -> dict[str, TrackInfo]:
        """Stop recording and finalise every track file; safe to call after a failure."""
        await settle(self.transport_stats(), None, "recorder: transport stats")
        if self._stats_task is not None:
            await cancel_and_wait([self._stats_task], 2.0, "recorder: stats sampler")
        await cancel_and_wait(self._tasks.values(), 10.0, "recorder: track writers")
        await self.video.cancel()
        await self.leave()
        self.video_infos = await self.video.finalize()
        infos: dict[str, TrackInfo] = {}
        for name, rec in self.tracks.items():  # fsync and WAV writing off the event loop (other rooms play)
            infos[name] = await asyncio.to_thread(rec.finalize, self.clock)
        return infos
