"""The user's camera in the room: clip videos published as a video track on the audio's clock.

The audio track's sample index is its clock (`playback.TrackWriter`): a clip
placed at sample S leaves the source at ``playout_ns(S)``. The video track
follows that clock, frame-accurate: a clip's frame k is captured at
``playout_ns(S) + k / fps``, so its first frame goes out with its first
sample. Between clips the scenario's idle loop plays on its own grid; a clip's
start cuts the idle frame in hand short rather than moving the clip.

Three parts, so that video never holds up the audio writer on the event loop:

- `ClipFrames` decodes a video file with PyAV in its own thread, a bounded
  queue ahead of the pacer (a long imported clip is never all in memory);
- `VideoPacer` decides, deterministically, which frame is due when (tested
  on a virtual clock in tests/test_video_source.py);
- `VideoTrackWriter` runs the pacer in a thread: it sleeps until each frame
  is due, stamps the frame index into the pixels (`video_marker`), hands the
  frame to the `rtc.VideoSource` (which does not pace: it sends what it gets
  when it gets it), and logs the frame — index, clip, planned and actual
  capture ns on the session clock — to ``NAME.sent.jsonl``.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from floorbench.pipelines.video import marker as video_marker

log = logging.getLogger(__name__)

NS = 1_000_000_000


class VideoFileError(ValueError):
    """A clip video cannot be read; the message is one line naming the file and the fix."""


def i420_size(width: int, height: int) -> int:
    return width * height + 2 * ((width + 1) // 2) * ((height + 1) // 2)


def decode_i420(path: Path, width: int, height: int) -> list[np.ndarray]:
    """Every frame of a (short) video as flat I420 arrays of `width` × `height`."""
    return list(_frames(path, width, height))


def _frames(path: Path, width: int, height: int) -> Iterator[np.ndarray]:
    import av

    try:
        container = av.open(str(path))
    except Exception as e:
        raise VideoFileError(
            f"{path}: cannot open the video ({type(e).__name__}); re-generate or re-import it"
        ) from None
    with container:
        if not container.streams.video:
            raise VideoFileError(f"{path}: no video stream; a clip needs one")
        for frame in container.decode(video=0):
            if (frame.width, frame.height) != (width, height) or frame.format.name != "yuv420p":
                frame = frame.reformat(width=width, height=height, format="yuv420p")
            arr = frame.to_ndarray(format="yuv420p")
            yield np.ascontiguousarray(arr).reshape(-1)


class ClipFrames:
    """One clip's frames, decoded in a thread up to `ahead` frames before they are needed."""

    def __init__(self, path: Path, width: int, height: int, ahead: int = 30) -> None:
        self.path = path
        self._q: queue.Queue[np.ndarray | BaseException | None] = queue.Queue(maxsize=ahead)
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(
            target=self._decode, args=(width, height), name=f"decode-{path.name}", daemon=True
        )
        self._thread.start()

    def _decode(self, width: int, height: int) -> None:
        try:
            for f in _frames(self.path, width, height):
                while not self._stop.is_set():
                    try:
                        self._q.put(f, timeout=0.2)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
            self._q.put(None)
        except BaseException as e:  # handed to the consumer, which logs it
            self._q.put(e)

    def next(self, timeout_s: float = 5.0) -> np.ndarray | None:
        """The next frame, or None at the end (or if the decoder failed or is too slow: logged)."""
        if self._done:
            return None
        try:
            item = self._q.get(timeout=timeout_s)
        except queue.Empty:
            log.warning("%s: no frame decoded in %.0f s; the clip's video ends here", self.path, timeout_s)
            item = None
        if isinstance(item, BaseException):
            log.warning("%s: decoding failed (%s); the clip's video ends here", self.path, item)
            item = None
        if item is None:
            self._done = True
        return item

    def close(self) -> None:
        self._stop.set()
        self._done = True


@dataclass
class VideoClip:
    """A clip's video placed on the audio track: its first frame leaves with sample `start`."""

    clip_id: int | None
    label: str
    start: int
    """audio sample index of the clip's start"""
    frames: ClipFrames | list[np.ndarray]
    sent: int = 0
    dropped: int = 0
    first_capture_ns: int | None = None
    planned_start_ns: int | None = None


@dataclass
class DueFrame:
    """The pacer's next frame: when, what, and where it comes from."""

    due_ns: int
    frame: np.ndarray
    clip: VideoClip | None
    k: int
    """frame number inside its clip (or the idle loop)"""


class FrameSource(Protocol):
    """Where frames go: an `rtc.VideoSource`, or a list in tests."""

    def capture(self, i420: np.ndarray, index: int, capture_ns: int) -> None: ...


@dataclass
class VideoPacer:
    """Which frame is due when; no threads and no clock of its own (tested on a virtual clock)."""

    fps: int
    width: int
    height: int
    playout_ns: Callable[[int], int]
    """the audio track's clock: when sample n leaves the source"""
    idle: list[np.ndarray] = field(default_factory=list)
    pending: deque[VideoClip] = field(default_factory=deque)
    base_ns: int = 0
    k: int = 0
    active: VideoClip | None = None
    idle_i: int = 0
    _held: np.ndarray | None = None
    _next: np.ndarray | None = None

    def __post_init__(self) -> None:
        self._held = np.full(i420_size(self.width, self.height), 128, dtype=np.uint8)
        self._held[: self.width * self.height] = BLANK_LUMA

    def start(self, now_ns: int) -> None:
        self.base_ns, self.k = now_ns, 0

    def period_ns(self, k: int) -> int:
        return k * NS // self.fps

    def peek(self, now_ns: int) -> DueFrame:
        """The next frame to send (the clip's next frame, or the idle loop's unless a clip starts first).

        A clip whose start has passed (scheduled late, or the pacer stalled) keeps its
        grid: frames already more than half a period overdue are dropped, not bunched.
        """
        if self.active is None and self.pending:
            clip = self.pending[0]
            start_ns = self.playout_ns(clip.start)
            if start_ns <= self.base_ns + self.period_ns(self.k):
                self.pending.popleft()
                clip.planned_start_ns = start_ns
                self.active, self.base_ns, self.k = clip, start_ns, 0
        if self.active is not None:
            clip = self.active
            while True:
                if self._next is None:
                    self._next = _take(clip)
                if self._next is None:  # the clip's video ended: back to the idle grid
                    self.active = None
                    self.base_ns, self.k = self.base_ns + self.period_ns(self.k), 0
                    return self.peek(now_ns)
                due = self.base_ns + self.period_ns(self.k)
                if now_ns - due <= NS // self.fps // 2:
                    return DueFrame(due, self._next, clip, self.k)
                clip.dropped += 1
                self._next = None
                self.k += 1
        frame = self.idle[self.idle_i % len(self.idle)] if self.idle else self._held
        assert frame is not None
        return DueFrame(self.base_ns + self.period_ns(self.k), frame, None, self.idle_i)

    def commit(self, sent: DueFrame) -> None:
        """`sent` went out: advance past it."""
        if sent.clip is not None:
            sent.clip.sent += 1
            self._next = None
            self._held = sent.frame
        else:
            self.idle_i += 1
        self.k += 1
        if self.k > 100_000:  # keep the grid's arithmetic small on long runs
            self.base_ns += self.period_ns(self.k)
            self.k = 0


BLANK_LUMA = 96
"""the grey shown before the first clip when a scenario has no idle loop"""


def _take(clip: VideoClip) -> np.ndarray | None:
    if isinstance(clip.frames, ClipFrames):
        return clip.frames.next()
    return clip.frames[clip.sent + clip.dropped] if clip.sent + clip.dropped < len(clip.frames) else None


class VideoTrackWriter:
    """The video track's single writer: a thread that sends each frame when it is due."""

    def __init__(
        self,
        sink: FrameSource,
        fps: int,
        size: tuple[int, int],
        now_ns: Callable[[], int],
        playout_ns: Callable[[int], int],
        sent_path: Path,
        idle_video: Path | None = None,
    ) -> None:
        self.sink = sink
        self.fps = fps
        self.width, self.height = size
        self.now_ns = now_ns
        idle = decode_i420(idle_video, self.width, self.height) if idle_video is not None else []
        self.pacer = VideoPacer(fps, self.width, self.height, playout_ns, idle=idle)
        self.sent_path = sent_path
        self.frames_sent = 0
        self.clips: list[VideoClip] = []
        self._log = sent_path.open("w")
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def schedule(self, video: Path, at: int, clip_id: int | None, label: str = "") -> VideoClip:
        """Play `video` from audio sample `at` on (decoding starts now, in its own thread)."""
        clip = VideoClip(clip_id, label or f"clip {clip_id}", at, ClipFrames(video, self.width, self.height))
        # no lock: deque/list appends are atomic, and the pacer may be blocked on a decoder
        # while this runs on the event loop, which must never wait for video
        self.pacer.pending.append(clip)
        self.clips.append(clip)
        self._wake.set()
        return clip

    def start(self) -> None:
        self.pacer.start(self.now_ns())
        self._thread = threading.Thread(target=self._run, name="video-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            due = self.pacer.peek(self.now_ns())
            wait_s = (due.due_ns - self.now_ns()) / NS
            if wait_s > 0 and self._wake.wait(min(wait_s, 0.5)):
                self._wake.clear()
                continue  # a clip was scheduled: decide again
            if self.now_ns() < due.due_ns:
                continue
            self.pacer.commit(due)
            self._send(due)

    def _send(self, due: DueFrame) -> None:
        frame = due.frame.copy()
        index = self.frames_sent
        video_marker.stamp(frame, self.width, self.height, index)
        capture_ns = self.now_ns()
        try:
            self.sink.capture(frame, index, capture_ns)
        except Exception as e:  # a closed source at the end of the run
            log.warning("video track: capture failed (%s); frame %d not sent", e, index)
            return
        self.frames_sent += 1
        clip = due.clip
        if clip is not None and clip.first_capture_ns is None:
            clip.first_capture_ns = capture_ns
        line = {
            "index": index,
            "clip": clip.clip_id if clip is not None else None,
            "label": clip.label if clip is not None else "idle",
            "frame": due.k,
            "planned_ns": due.due_ns,
            "capture_ns": capture_ns,
        }
        self._log.write(json.dumps(line) + "\n")

    def stop(self, timeout_s: float = 2.0) -> None:
        """Stop sending; close the decoders and the frame log (blocking: call it off the event loop)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            if self._thread.is_alive():
                log.warning("video track: writer thread still running %.1f s after stop", timeout_s)
        for clip in self.clips:
            if isinstance(clip.frames, ClipFrames):
                clip.frames.close()
        self._log.close()

    def summary(self) -> dict[str, object]:
        """What the playback says about its video in meta.json (files, counts, per clip)."""
        return {
            "sent_file": self.sent_path.name,
            "fps": self.fps,
            "size": [self.width, self.height],
            "frames_sent": self.frames_sent,
            "clips": [
                {
                    "clip": c.clip_id,
                    "label": c.label,
                    "frames_sent": c.sent,
                    "frames_dropped": c.dropped,
                    "planned_start_ns": c.planned_start_ns,
                    "first_capture_ns": c.first_capture_ns,
                }
                for c in self.clips
            ],
        }


class LiveKitFrames:
    """`FrameSource` onto an `rtc.VideoSource`; the send index also rides as frame metadata."""

    def __init__(self, source: object, width: int, height: int) -> None:
        self.source = source
        self.width, self.height = width, height

    def capture(self, i420: np.ndarray, index: int, capture_ns: int) -> None:
        from livekit import rtc
        from livekit.rtc._proto import video_frame_pb2

        frame = rtc.VideoFrame(self.width, self.height, rtc.VideoBufferType.I420, i420.tobytes())
        meta = video_frame_pb2.FrameMetadata(frame_id=index % (1 << 32), user_timestamp=capture_ns // 1000)
        assert isinstance(self.source, rtc.VideoSource)
        self.source.capture_frame(frame, timestamp_us=capture_ns // 1000, metadata=meta)


@dataclass(frozen=True)
class CameraSettings:
    """The user's camera of one scenario: its frame rate, frame size and idle loop."""

    fps: int
    size: tuple[int, int]
    idle_video: Path | None = None
    track_name: str = "humans.video"


class UserCamera:
    """The playback's video track: publishes it and runs its `VideoTrackWriter`."""

    def __init__(
        self,
        settings: CameraSettings,
        now_ns: Callable[[], int],
        playout_ns: Callable[[int], int],
        out_dir: Path,
    ) -> None:
        from livekit import rtc

        self.settings = settings
        w, h = settings.size
        self.source = rtc.VideoSource(w, h)
        self.writer = VideoTrackWriter(
            LiveKitFrames(self.source, w, h),
            settings.fps,
            settings.size,
            now_ns,
            playout_ns,
            out_dir / f"{settings.track_name}.sent.jsonl",
            settings.idle_video,
        )

    async def publish(self, local: object, timeout_s: float) -> None:
        """Publish the camera track (frame index also as LiveKit frame metadata, where it survives)."""
        import asyncio

        from livekit import rtc
        from livekit.rtc._proto import track_pb2

        assert isinstance(local, rtc.LocalParticipant)
        track = rtc.LocalVideoTrack.create_video_track(self.settings.track_name, self.source)
        opts = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_CAMERA, simulcast=False)
        opts.frame_metadata_features.append(track_pb2.FMF_FRAME_ID)
        opts.frame_metadata_features.append(track_pb2.FMF_USER_TIMESTAMP)
        await asyncio.wait_for(local.publish_track(track, opts), timeout_s)

    def schedule(self, video: Path, at: int, clip_id: int | None, label: str = "") -> VideoClip:
        return self.writer.schedule(video, at, clip_id, label)

    def start(self) -> None:
        self.writer.start()

    async def stop(self) -> None:
        import asyncio

        await asyncio.to_thread(self.writer.stop)
        await self.source.aclose()
