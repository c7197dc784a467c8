"""Deliver each received audio frame to its own stream only, however many rooms one process holds.

The LiveKit SDK hands every FFI event to every subscriber of one process-wide
queue: each `rtc.AudioStream` receives the frames of *all* streams in the
process (its filter only checks the event type) and drops the others on its
event loop. With S streams at 100 frames/s each that is 100·S² loop wake-ups
and queue operations a second, S − 1 of every S wasted: negligible for one
room, and the reason many rooms in one runner process collapse (measured:
eight rooms → 2 597 playback underruns, ~1.9 s transport latency).

`routed_audio_stream` makes an `rtc.AudioStream` whose frames go straight to
its own queue, keyed by the stream's FFI handle. The queue object stays the
same one the stream's reader task waits on, and moving it from the broadcast
list to the routing table happens under the SDK queue's own lock, so no frame
is lost or reordered at the switch. Every other event is broadcast exactly as
the SDK does. This touches private attributes of livekit rtc (pinned to
1.1.x in pyproject.toml); `install()` checks them and leaves the SDK as it is,
with a warning, when they are not what it expects.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from livekit import rtc
from livekit.rtc._ffi_client import FfiClient, FfiQueue

log = logging.getLogger(__name__)


class RoutedFfiQueue(FfiQueue[Any]):
    """The SDK's event queue plus a table: stream handle → (queue, loop) of its one reader."""

    _routes: dict[int, tuple[asyncio.Queue[Any], asyncio.AbstractEventLoop]]

    def put(self, item: Any) -> None:
        if item.WhichOneof("message") == "audio_stream_event":
            with self._lock:
                route = self._routes.get(item.audio_stream_event.stream_handle)
            if route is not None:
                queue, loop = route
                try:
                    loop.call_soon_threadsafe(queue.put_nowait, item)
                except RuntimeError:  # the loop was closed without closing the stream first
                    pass
                return
        super().put(item)

    def route(self, queue: asyncio.Queue[Any], handle: int, loop: asyncio.AbstractEventLoop) -> None:
        """Move `queue` from the broadcast list to the table, for the stream `handle`."""
        with self._lock:
            for i, (q, _, _) in enumerate(self._subscribers):
                if q is queue:
                    self._subscribers.pop(i)
                    break
            self._routes[handle] = (queue, loop)

    def unsubscribe(self, queue: Any) -> None:
        with self._lock:
            for handle, (q, _) in list(self._routes.items()):
                if q is queue:
                    del self._routes[handle]
            super().unsubscribe(queue)


_installed: bool | None = None


def install() -> bool:
    """Turn the process's SDK queue into a `RoutedFfiQueue` (idempotent); False if the SDK differs."""
    global _installed
    if _installed is not None:
        return _installed
    queue = FfiClient.instance.queue
    if not (type(queue) is FfiQueue or isinstance(queue, RoutedFfiQueue)) or not all(
        hasattr(queue, a) for a in ("_lock", "_subscribers")
    ):
        log.warning("livekit rtc's FFI queue is not the one this routing knows; frames are broadcast")
        _installed = False
        return False
    if not isinstance(queue, RoutedFfiQueue):
        with queue._lock:
            queue.__class__ = RoutedFfiQueue
            queue._routes = {}  # type: ignore[attr-defined]
    _installed = True
    return True


def routed_audio_stream(
    track: rtc.Track, sample_rate: int, num_channels: int = 1, frame_size_ms: int | None = None
) -> rtc.AudioStream:
    """An `rtc.AudioStream` of `track` whose frames reach it alone (see the module docstring);
    `frame_size_ms` asks the SDK for frames that long (None: its 10 ms)."""
    stream = rtc.AudioStream(track, sample_rate=sample_rate, num_channels=num_channels, frame_size_ms=frame_size_ms)
    if install():
        queue = FfiClient.instance.queue
        own = getattr(stream, "_ffi_queue", None)
        handle = getattr(getattr(stream, "_ffi_handle", None), "handle", None)
        if isinstance(queue, RoutedFfiQueue) and own is not None and isinstance(handle, int):
            queue.route(own, handle, stream._loop)  # pyright: ignore[reportPrivateUsage]
    return stream
