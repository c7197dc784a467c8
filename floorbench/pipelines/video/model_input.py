"""Video into a model's chain: which models get the room's video, and at what frame rate.

A model that looks declares it on one of its processors: ``wants_video = True``
(`floorbench.processors.vision_cue`), and optionally ``video_in_fps``, the
frames per second it wants. The model process then opens pipecat's LiveKit
input with ``video_in_enabled`` and, with a rate, ``video_in_sources`` for the
user's camera at that rate: the transport's sampler passes on that many
``UserImageRawFrame``s (an ``InputImageRawFrame``) a second and drops the rest,
so a slow detector never queues frames. Audio-only models (the default) get
no video at all: no receive path is opened for it.
"""

from __future__ import annotations

from typing import Any

CAMERA = "camera"
"""pipecat's name for a participant's camera track (the playback publishes the user's video as one)"""


def video_in_params(processors: list[Any]) -> dict[str, Any]:
    """The `LiveKitParams` keys for a chain: none for audio-only, video in at the highest asked rate otherwise."""
    lookers = [p for p in processors if getattr(p, "wants_video", False)]
    if not lookers:
        return {}
    from pipecat.transports.base_transport import VideoInSourceParams

    rates = [int(r) for p in lookers if (r := getattr(p, "video_in_fps", None))]
    sources = {CAMERA: VideoInSourceParams(framerate=max(rates))} if rates else {}
    return {"video_in_enabled": True, "video_in_sources": sources}
