"""The user's camera reaches a model chain that looks, at the frame rate it asked for (real room, real pipecat).

The playback's camera (`video_source.UserCamera`) publishes a fixture clip at
15 fps into a real LiveKit room; the model side is built exactly as the model
process builds it (`model_participant._pipeline`) around a processor that
says ``wants_video`` at ``video_in_fps = 5``. Its images must come from the
playback, at the scenario's size, in send order (read from the frame index
strip), thinned by pipecat's sampler to about a third of what was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import pytest
from livekit import rtc
from pipecat.frames.frames import Frame, InputImageRawFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from floorbench.pipelines.room.model_participant import _pipeline
from floorbench.pipelines.video import marker as video_marker
from floorbench.pipelines.video.model_input import video_in_params
from floorbench.pipelines.video.source import CameraSettings, UserCamera
from floorbench.transports.rooms import PLAYBACK_IDENTITY, model_token, playback_token
from floorbench.transports.server import LiveKitConnection

WANTED = 16
CLIP = Path(__file__).parent / "fixtures" / "suites" / "av-tiny" / "video" / "av003-raised-hand-c1.mp4"


class ImageCounter(FrameProcessor):
    """Keeps (arrival ns, user, size, sent index) of every image that reaches the chain."""

    wants_video: ClassVar[bool] = True
    video_in_fps: ClassVar[int] = 5

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, str, tuple[int, int], int | None]] = []
        self.enough = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InputImageRawFrame):
            w, h = frame.size
            rgb = np.frombuffer(frame.image, dtype=np.uint8).reshape(h, w, 3).astype(np.float32)
            luma = rgb @ np.array([0.257, 0.504, 0.098], dtype=np.float32) + 16  # the strip is read on Y
            index = video_marker.read(luma)
            self.seen.append((time.monotonic_ns(), str(getattr(frame, "user_id", "")), (w, h), index))
            if len(self.seen) >= WANTED:
                self.enough.set()
            return
        await self.push_frame(frame, direction)


def test_audio_only_models_get_no_video_and_lookers_get_their_rate() -> None:
    assert video_in_params([object()]) == {}
    params = video_in_params([ImageCounter()])
    assert params["video_in_enabled"] is True and params["video_in_sources"]["camera"].framerate == 5


async def _run(conn: LiveKitConnection, tmp: Path) -> tuple[ImageCounter, int]:
    room = "video-in-live"
    counter = ImageCounter()
    spec: Any = SimpleNamespace(
        url=conn.url, token=model_token(conn, room), room=room, out_queue_ms=100, impair=None
    )
    ctx: Any = SimpleNamespace(in_sample_rate=16000, out_sample_rate=24000)
    _, runner, worker = _pipeline(spec, ctx, [counter], [])
    await runner.add_workers(worker)
    model = asyncio.create_task(runner.run())
    t0 = time.monotonic_ns()
    playback = rtc.Room()
    await playback.connect(conn.url, playback_token(conn, room))
    camera = UserCamera(
        CameraSettings(15, (320, 240)), lambda: time.monotonic_ns() - t0, lambda s: s * 62_500, tmp
    )
    try:
        await camera.publish(playback.local_participant, 10.0)
        camera.start()
        camera.schedule(CLIP, (time.monotonic_ns() - t0) // 62_500 + 8000, 1)  # half a second from now
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(counter.enough.wait(), 20)
    finally:
        await camera.stop()
        await playback.disconnect()
        await asyncio.wait_for(runner.cancel(reason="test over"), 10)
        await asyncio.wait_for(model, 10)
    return counter, camera.writer.frames_sent


@pytest.mark.live
def test_the_camera_reaches_a_looking_chain_at_its_rate(tmp_path: Path, livekit: LiveKitConnection) -> None:
    counter, sent = asyncio.run(_run(livekit, tmp_path))
    seen = counter.seen
    assert len(seen) >= WANTED, f"only {len(seen)} images reached the chain ({sent} sent)"
    assert {s[1] for s in seen} == {PLAYBACK_IDENTITY} and {s[2] for s in seen} == {(320, 240)}
    indexes = [s[3] for s in seen if s[3] is not None]
    assert len(indexes) >= len(seen) - 2 and indexes == sorted(indexes)
    # 15 fps sent, 5 asked for: consecutive images are about three sent frames apart, never every frame
    gaps = np.diff(indexes)
    assert float(np.median(gaps)) >= 2, gaps
    span_s = (seen[-1][0] - seen[0][0]) / 1e9
    print(
        f"{len(seen)} images in {span_s:.2f} s ({(len(seen) - 1) / span_s:.1f}/s), {sent} frames sent, gaps {gaps.tolist()}"
    )
