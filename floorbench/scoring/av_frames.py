"""Sampled frames of a recorded video track, for the rubric judge and the report.

The recorder writes each video track it receives as a file PyAV reads (a
container, ``<track>.<ext>``) or a folder of frame images (``<track>/``), with
``<track>.frames.jsonl`` beside it: one line per frame with its ``index`` and
its ``arrival_ns`` on the session clock. Here a time on model.wav's clock
(session ms − model.wav's start) picks the frame that had arrived by then.
A folder without such a track gives no frames, and callers say so ("no video
recorded"): a frame is never invented.
"""

from __future__ import annotations

import base64
import io
import json
from dataclasses import dataclass
from pathlib import Path

VIDEO_EXTS = (".mp4", ".mkv", ".webm", ".avi", ".mov", ".ivf")
IMAGE_EXTS = (".jpg", ".jpeg", ".png")
THUMB_WIDTH = 240
"""sampled frames are scaled to this width (JPEG): enough to see a hand or a face, small in a report"""


@dataclass(frozen=True)
class VideoTrack:
    """One recorded video track: where its frames are and when each arrived (model.wav's clock, ms)."""

    name: str
    source: Path
    """a container file, or a folder of frame images"""
    times_ms: list[int]
    """per frame index, its arrival on model.wav's clock"""


def _frame_times(path: Path, t0_ms: int) -> list[int]:
    out: list[tuple[int, int]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
            out.append((int(row["index"]), int(row["arrival_ns"]) // 1_000_000 - t0_ms))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue
    out.sort()
    return [t for _, t in out]


def video_tracks(folder: Path, t0_ms: int) -> list[VideoTrack]:
    """Every recorded video track of a scenario folder (``t0_ms``: model.wav's start, session ms)."""
    tracks: list[VideoTrack] = []
    for meta in sorted(folder.glob("*.frames.jsonl")):
        name = meta.name[: -len(".frames.jsonl")]
        source = next(
            (folder / f"{name}{ext}" for ext in VIDEO_EXTS if (folder / f"{name}{ext}").is_file()), None
        )
        if source is None and (folder / name).is_dir():
            source = folder / name
        if source is None:
            continue
        times = _frame_times(meta, t0_ms)
        if times:
            tracks.append(VideoTrack(name, source, times))
    return tracks


def model_track(tracks: list[VideoTrack]) -> VideoTrack | None:
    """The model's own video, if it sent one (a track named after the model)."""
    return next((t for t in tracks if t.name.startswith("model")), None)


def user_track(tracks: list[VideoTrack]) -> VideoTrack | None:
    return next((t for t in tracks if not t.name.startswith("model")), None)


def frame_at(track: VideoTrack, t_ms: int) -> int | None:
    """Index of the last frame that had arrived by `t_ms` (None before the first)."""
    idx = None
    for i, t in enumerate(track.times_ms):
        if t <= t_ms:
            idx = i
        else:
            break
    return idx


def _jpeg(image: object) -> bytes:
    from PIL import Image

    assert isinstance(image, Image.Image)
    w, h = image.size
    if w > THUMB_WIDTH:
        image = image.resize((THUMB_WIDTH, max(1, h * THUMB_WIDTH // w)))
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="JPEG", quality=80)
    return buf.getvalue()


def read_frames(track: VideoTrack, indexes: list[int]) -> dict[int, bytes]:
    """JPEG bytes of the wanted frame indexes (frames that cannot be decoded are left out)."""
    want = sorted(set(indexes))
    out: dict[int, bytes] = {}
    if not want:
        return out
    if track.source.is_dir():
        from PIL import Image

        files = sorted(p for p in track.source.iterdir() if p.suffix.lower() in IMAGE_EXTS)
        for i in want:
            if i < len(files):
                with Image.open(files[i]) as im:
                    out[i] = _jpeg(im)
        return out
    import av
    from av.error import FFmpegError

    try:
        with av.open(str(track.source)) as container:
            for n, frame in enumerate(container.decode(video=0)):
                if n in want:
                    out[n] = _jpeg(frame.to_image())
                if n >= want[-1]:
                    break
    except (FFmpegError, OSError):
        return out
    return out


def sample_times(window: tuple[int, int], n: int = 3) -> list[int]:
    """`n` moments spread over the window: its start, its end and between."""
    ws, we = window
    if n <= 1:
        return [(ws + we) // 2]
    return [ws + (we - ws) * k // (n - 1) for k in range(n)]


def sampled(track: VideoTrack | None, times: list[int]) -> list[tuple[int, bytes]]:
    """(time, JPEG) for each time at which a frame had arrived; empty without a track."""
    if track is None:
        return []
    picks = [(t, frame_at(track, t)) for t in times]
    frames = read_frames(track, [i for _, i in picks if i is not None])
    return [(t, frames[i]) for t, i in picks if i is not None and i in frames]


def data_url(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
