"""The recorder's video: every video track in the room to a container plus a per-frame log.

For each video track (the user's camera from the playback, and the model's if
it publishes one) the recorder keeps:

- ``NAME.mkv`` — the frames as received (Matroska, MPEG-4 Part 2), each at
  its arrival time (ms since the track's first frame), encoded in a worker
  thread so the event loop, which also records the audio, never waits on it;
- ``NAME.frames.jsonl`` — one line per received frame: ``n`` (arrival order),
  ``arrival_ns`` on the session clock, ``sent_index`` (the sender's frame
  index read from the pixel code strip, `video_marker`; null where there is
  none, as in a model's own video), ``frame_id`` (the same index as LiveKit
  frame metadata, where it survived), width and height, and ``pts_ms``: the
  frame's time in the container (ms after the first picture's arrival,
  ``pts_origin_ns`` in meta.json; null if the encoder was too far behind to
  take it). The receiver's 8×8 stand-in frames after a track ends are logged
  with ``placeholder: true`` and kept out of the container.

The playback logs each sent index with its capture time, so the two logs
joined on the index give every frame's transport latency
(`floorbench.pipelines.video.timing`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import threading
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from livekit import rtc

from floorbench.clock import SessionClock
from floorbench.pipelines.room.participant import cancel_and_wait, settle
from floorbench.pipelines.video import marker as video_marker

log = logging.getLogger(__name__)

CODEC = "mpeg4"
CONTAINER = "matroska"
QUEUE_FRAMES = 120
"""frames waiting for the encoder before the container starts skipping (the log never skips)"""
PLACEHOLDER_PX = 16
"""frames smaller than this on a side are the receiver's stand-ins (8×8 black frames once a
track ends), not pictures: logged as placeholders, kept out of the container and the index read"""


class FrameEncoder:
    """Writes I420 frames to a Matroska file at their arrival times, in its own thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = 0
        self.skipped = 0
        self.error: str | None = None
        self._q: queue.Queue[tuple[np.ndarray, int, int, int] | None] = queue.Queue(maxsize=QUEUE_FRAMES)
        self._thread = threading.Thread(target=self._run, name=f"encode-{path.name}", daemon=True)
        self._thread.start()

    def put(self, i420: np.ndarray, width: int, height: int, pts_ms: int) -> bool:
        """Queue a frame for the file; False (counted as skipped) if the encoder is that far behind."""
        try:
            self._q.put_nowait((i420, width, height, pts_ms))
            return True
        except queue.Full:
            self.skipped += 1
            return False

    def _run(self) -> None:
        import av

        container: Any = None
        stream: Any = None
        size: tuple[int, int] | None = None
        last_pts = -1
        try:
            while (item := self._q.get()) is not None:
                i420, w, h, pts = item
                frame = av.VideoFrame.from_ndarray(i420.reshape(h * 3 // 2, w), format="yuv420p")
                if container is None:
                    size = (w, h)
                    container = av.open(str(self.path), "w", format=CONTAINER)
                    stream = container.add_stream(CODEC, rate=30)
                    stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
                    stream.codec_context.time_base = Fraction(1, 1000)
                    stream.codec_context.qscale = 4
                assert size is not None
                if (w, h) != size:  # the sender's encoder scaled: keep the container's size
                    frame = frame.reformat(width=size[0], height=size[1])
                frame.pts = max(pts, last_pts + 1)
                frame.time_base = Fraction(1, 1000)
                last_pts = frame.pts
                for packet in stream.encode(frame):
                    container.mux(packet)
                self.written += 1
            if container is not None:
                for packet in stream.encode():
                    container.mux(packet)
        except Exception as e:  # the frame log stays; say why the container is short
            self.error = f"{type(e).__name__}: {e}"
            log.warning("%s: encoding failed (%s); the frame log is complete", self.path.name, self.error)
            while self._q.get() is not None:  # drain so `put` never blocks a closing recorder
                pass
        finally:
            if container is not None:
                container.close()

    def close(self, timeout_s: float = 30.0) -> None:
        """Finish the file (blocking: call it off the event loop)."""
        self._q.put(None)
        self._thread.join(timeout_s)


@dataclass
class VideoRecording:
    """One recorded video track: its container, its frame log, and what was read from it."""

    name: str
    participant: str
    out_dir: Path
    frames: int = 0
    placeholders: int = 0
    indexed: int = 0
    last_index: int | None = None
    first_arrival_ns: int | None = None
    sizes: set[tuple[int, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.encoder = FrameEncoder(self.out_dir / f"{self.name}.mkv")
        self._log = (self.out_dir / f"{self.name}.frames.jsonl").open("w")

    def add(self, frame: rtc.VideoFrame, arrival_ns: int, frame_id: int | None) -> None:
        w, h = frame.width, frame.height
        if w < PLACEHOLDER_PX or h < PLACEHOLDER_PX:
            self.placeholders += 1
            line = {"n": self.frames, "arrival_ns": arrival_ns, "placeholder": True, "width": w, "height": h}
            self._log.write(json.dumps(line) + "\n")
            self.frames += 1
            return
        data = np.frombuffer(frame.data, dtype=np.uint8)
        sent = video_marker.read(data[: w * h].reshape(h, w))
        if sent is not None:
            sent = video_marker.unwrap(sent, self.last_index)
            self.last_index = sent
            self.indexed += 1
        if self.first_arrival_ns is None:
            self.first_arrival_ns = arrival_ns
        pts = (arrival_ns - self.first_arrival_ns) // 1_000_000
        queued = self.encoder.put(data.copy(), w, h, pts)
        line = {
            "n": self.frames,
            "arrival_ns": arrival_ns,
            "sent_index": sent,
            "frame_id": frame_id,
            "width": w,
            "height": h,
            "pts_ms": pts if queued else None,
        }
        self._log.write(json.dumps(line) + "\n")
        self.frames += 1
        self.sizes.add((w, h))

    def finalize(self) -> dict[str, Any]:
        """Close both files; the track's entry in meta.json ``video.tracks`` (blocking)."""
        self._log.close()
        self.encoder.close()
        return {
            "participant": self.participant,
            "file": self.encoder.path.name if self.encoder.written else None,
            "frames_file": f"{self.name}.frames.jsonl",
            "frames": self.frames,
            "placeholder_frames": self.placeholders,
            "frames_in_file": self.encoder.written,
            "frames_skipped_in_file": self.encoder.skipped,
            "frames_with_index": self.indexed,
            "pts_origin_ns": self.first_arrival_ns,
            "sizes": sorted([list(s) for s in self.sizes]),
            "encode_error": self.encoder.error,
        }


class VideoTracks:
    """The recorder's video half: one `VideoStream` and one recording per video track."""

    def __init__(self, out_dir: Path, clock: SessionClock) -> None:
        self.out_dir = out_dir
        self.clock = clock
        self.recordings: dict[str, VideoRecording] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, track: rtc.Track, name: str, identity: str) -> None:
        old = self._tasks.pop(name, None)
        if old is not None:
            old.cancel()
        rec = self.recordings.get(name)
        if rec is None:
            rec = self.recordings[name] = VideoRecording(name, identity, self.out_dir)
        stream = rtc.VideoStream(track, format=rtc.VideoBufferType.I420)
        self._tasks[name] = asyncio.create_task(self._consume(stream, rec), name=f"record-{name}")

    async def _consume(self, stream: rtc.VideoStream, rec: VideoRecording) -> None:
        try:
            async for ev in stream:
                arrival = self.clock.now_ns()
                frame_id = (
                    ev.metadata.frame_id
                    if ev.metadata is not None and ev.metadata.HasField("frame_id")
                    else None
                )
                rec.add(ev.frame, arrival, frame_id)
        except asyncio.CancelledError:
            pass
        finally:
            await settle(stream.aclose(), None, f"recorder: closing the {rec.name} stream")

    async def cancel(self) -> None:
        """Stop every stream (before the recorder leaves the room)."""
        await cancel_and_wait(self._tasks.values(), 10.0, "recorder: video tracks")

    async def finalize(self) -> dict[str, dict[str, Any]]:
        """Finish the files in worker threads; meta.json's ``video.tracks`` entries."""
        out: dict[str, dict[str, Any]] = {}
        for name, rec in self.recordings.items():
            out[name] = await asyncio.to_thread(rec.finalize)
        return out
