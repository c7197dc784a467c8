"""Sampled frames of a recorded video track, for the rubric judge and the report.

The recorder writes each video track it receives as a file PyAV reads (a
container, ``<track>.<ext>``, e.g. ``model.video.mkv``, whose frames are
stamped with their arrival time since the track's first frame) or a folder of
frame images (``<track>/``), with ``<track>.frames.jsonl`` beside it: one line
per frame with its arrival order ``n`` and its ``arrival_ns`` on the session
clock. Here a time on model.wav's clock (session ms − model.wav's start)
picks the last frame that had arrived by then.
A folder without such a track gives no frames, and callers say so ("no video
recorded"): a frame is never invented.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floorbench.paths import inside, inside_each
from floorbench.scoring.inputs import InputError

VIDEO_EXTS = (".mp4", ".mkv", ".webm", ".avi", ".mov", ".ivf")
IMAGE_EXTS = (".jpg", ".jpeg", ".png")
THUMB_WIDTH = 240
"""sampled frames are scaled to this width (JPEG): enough to see a hand or a face, small in a report"""


@dataclass(frozen=True)
class VideoTrack:
    """One recorded video track: where its frames are and when each arrived (model.wav's clock, ms)."""

    name: str
    source: Path
    """a container file (frames stamped with their arrival since the first frame), or a folder of images"""
    times_ms: list[int]
    """per frame, in arrival order, its arrival on model.wav's clock"""


def _frame_times(path: Path, t0_ms: int) -> list[int]:
    """Each logged frame's arrival on model.wav's clock, in arrival order (``n``, or ``index``)."""
    from floorbench.readers import MAX_JSON_BYTES, ReadError, parse_json, read_bytes

    out: list[tuple[int, int]] = []
    text = read_bytes(path, MAX_JSON_BYTES, InputError).decode("utf-8", errors="replace")
    for line in text.splitlines():
        try:  # a torn, non-finite (inf, 1e400) or mistyped row is skipped, never a traceback
            row = parse_json(line, str(path))
            order = row["n"] if "n" in row else row["index"]
            out.append((int(order), int(row["arrival_ns"]) // 1_000_000 - t0_ms))
        except (ReadError, KeyError, TypeError, ValueError, OverflowError):
            continue
    out.sort()
    return [t for _, t in out]


def video_tracks(folder: Path, t0_ms: int) -> list[VideoTrack]:
    """Every recorded video track of a scenario folder (``t0_ms``: model.wav's start, session ms).

    Each frame log and video (file, or folder of images) must lie inside the folder: a link to
    elsewhere is an `InputError` (floorbench.paths, the rule every reader follows), never read.
    """
    tracks: list[VideoTrack] = []
    for meta in sorted(folder.glob("*.frames.jsonl")):
        name = meta.name[: -len(".frames.jsonl")]
        inside(folder, meta.name, f"{folder}: video frame log", InputError)
        source = next(
            (folder / f"{name}{ext}" for ext in VIDEO_EXTS if (folder / f"{name}{ext}").is_file()), None
        )
        if source is None and (folder / name).is_dir():
            source = folder / name
        if source is None:
            continue
        inside(folder, source.name, f"{folder}: video track", InputError)
        if source.is_dir():
            inside_each(source, sorted(p.name for p in source.iterdir()), f"{source}: video frame", InputError)
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


def _image_frames(folder: Path, want: list[int]) -> dict[int, bytes]:
    from PIL import Image

    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTS)
    out: dict[int, bytes] = {}
    for i in want:
        if i < len(files):
            try:  # a frame that is no image (or a bomb past PIL's pixel limit) is left out, not a traceback
                with Image.open(files[i]) as im:
                    out[i] = _jpeg(im)
            except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
                continue
    return out


def _container_frames(path: Path, offsets_ms: list[int]) -> dict[int, bytes]:
    """JPEG of the last frame at or before each offset (ms after the file's first frame).

    The recorder stamps each frame with its arrival time since the track's first
    frame, so a frame the encoder had to skip shifts nothing: time, not count, picks.
    """
    import av
    from av.error import FFmpegError

    out: dict[int, bytes] = {}
    want = sorted(set(offsets_ms))
    if not want:
        return out
    first: float | None = None
    last: tuple[int, Any] | None = None
    try:
        with av.open(str(path)) as container:
            for frame in container.decode(video=0):
                t = float(frame.time or 0.0)
                first = t if first is None else first
                at = round((t - first) * 1000)
                while want and at > want[0] and last is not None:
                    out[want.pop(0)] = _jpeg(last[1].to_image())
                if not want:
                    break
                last = (at, frame)
            while want and last is not None:
                out[want.pop(0)] = _jpeg(last[1].to_image())
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
    """(time, JPEG) for each time by which a frame had arrived; empty without a track."""
    if track is None:
        return []
    picks = [t for t in times if frame_at(track, t) is not None]
    if track.source.is_dir():
        idx = {t: frame_at(track, t) for t in picks}
        frames = _image_frames(track.source, [i for i in idx.values() if i is not None])
        return [(t, frames[i]) for t, i in idx.items() if i is not None and i in frames]
    got = _container_frames(track.source, [t - track.times_ms[0] for t in picks])
    return [(t, got[t - track.times_ms[0]]) for t in picks if t - track.times_ms[0] in got]


def data_url(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
