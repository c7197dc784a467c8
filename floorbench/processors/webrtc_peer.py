"""The audio half of the `webrtc` bridge: room audio into an aiortc track, the product's track out, each timed.

aiortc encodes what a local track's ``recv()`` returns (Opus at 48 kHz, 20 ms
a packet) and decodes what the product sends into ``av.AudioFrame``s. The
bridge sits between those and the room:

- `RoomTrack` (room → product): room audio is resampled to 48 kHz and queued;
  ``recv()`` hands out 20 ms frames as soon as they are there, so the room's
  own pacing paces the stream and audio that arrives in a burst (after a
  stall of the model process) leaves in a burst instead of staying queued as
  permanent delay; when no room audio comes for a frame plus ``grace_ms``
  (before anyone publishes, or a stall), a frame of silence goes instead, so
  the product hears a continuous stream, as from a microphone. A queue longer
  than ``max_queue_ms`` (a stalled encoder) is cut from its old end: live
  audio, never delayed audio.
- `ArrivalClock` (product → room) notes when each RTP packet of the product's
  stream reached the bridge, so that a decoded frame's delay through aiortc's
  jitter buffer, the decoder and the bridge is known when it goes to the room.

`DelayLog` keeps those per-frame delays: the bridge's own delay each way,
from audio entering the bridge process (a decoded room frame; an RTP packet
from the product) to it leaving (handed to the Opus encoder; pushed to the
room's output). Not in it: the room's legs (the transport latency, measured
by the runner) and what happens inside the product (its own jitter buffer),
which a closed product does not show.
"""

from __future__ import annotations

import asyncio
import fractions
import time
from collections import deque
from typing import Any

import numpy as np
from aiortc import MediaStreamTrack

WIRE_RATE = 48000
"""what Opus carries over WebRTC (RFC 7587: the RTP clock is always 48 kHz)"""
FRAME_SAMPLES = WIRE_RATE // 50
"""one 20 ms frame at the wire rate"""


class DelayLog:
    """Per-frame delays (µs) of one direction through the bridge; summarised as integer ms."""

    def __init__(self, cap: int = 200_000) -> None:
        self.us: deque[int] = deque(maxlen=cap)

    def add(self, seconds: float) -> None:
        self.us.append(max(0, int(seconds * 1_000_000)))

    def summary(self) -> dict[str, Any]:
        """``{"n", "p50_ms", "p95_ms", "max_ms"}``; n = 0 and no figures when nothing crossed."""
        if not self.us:
            return {"n": 0}
        x = np.fromiter(self.us, dtype=np.int64)
        p50, p95 = np.percentile(x, [50, 95])
        return {
            "n": len(x),
            "p50_ms": round(float(p50) / 1000, 1),
            "p95_ms": round(float(p95) / 1000, 1),
            "max_ms": round(float(x.max()) / 1000, 1),
        }


def _resampler(src: int, dst: int) -> Any:
    import soxr

    return soxr.ResampleStream(src, dst, 1, dtype="int16", quality="HQ")


def mono_int16(pcm: np.ndarray, channels: int) -> np.ndarray:
    """Interleaved int16 → mono int16 (the mean of the channels)."""
    if channels <= 1:
        return pcm.astype(np.int16, copy=False)
    return pcm.reshape(-1, channels).mean(axis=1).astype(np.int16)


class RoomTrack(MediaStreamTrack):
    """The room's audio as an aiortc audio track (module docstring)."""

    kind = "audio"

    def __init__(self, grace_ms: int = 40, max_queue_ms: int = 200) -> None:
        super().__init__()
        self.grace_s = grace_ms / 1000
        self.max_queue = WIRE_RATE * max_queue_ms // 1000
        self.delays = DelayLog()
        self.dropped_ms = 0
        """room audio cut from a queue over ``max_queue_ms`` (the encoder fell behind)"""
        self._buf = np.zeros(0, dtype=np.int16)
        self._arrivals: deque[tuple[int, float]] = deque()
        """(stream position just past a chunk, monotonic time it arrived), oldest first"""
        self._head = 0
        """stream position of ``_buf[0]``"""
        self._more = asyncio.Event()
        self._resampler: Any = None
        self._rate = 0
        self._start: float | None = None
        self._sent = 0

    def feed(self, pcm: np.ndarray, rate: int) -> None:
        """Room audio (mono int16 at `rate`) arrived now."""
        now = time.monotonic()
        if rate != WIRE_RATE:
            if self._resampler is None or self._rate != rate:
                self._resampler, self._rate = _resampler(rate, WIRE_RATE), rate
            pcm = self._resampler.resample_chunk(pcm)
        if len(pcm) == 0:
            return
        self._buf = np.concatenate([self._buf, pcm])
        self._arrivals.append((self._head + len(self._buf), now))
        if len(self._buf) > self.max_queue:
            cut = len(self._buf) - self.max_queue
            self.dropped_ms += cut * 1000 // WIRE_RATE
            self._take(cut)
        self._more.set()

    def _take(self, n: int) -> np.ndarray:
        out, self._buf = self._buf[:n], self._buf[n:]
        self._head += len(out)
        while self._arrivals and self._arrivals[0][0] <= self._head:
            self._arrivals.popleft()
        return out

    def _arrival_of_head(self) -> float | None:
        return self._arrivals[0][1] if self._arrivals else None

    async def recv(self) -> Any:
        from aiortc.mediastreams import MediaStreamError

        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.monotonic()
        due = self._start + self._sent * FRAME_SAMPLES / WIRE_RATE
        now = time.monotonic()
        if not now - 0.2 <= due <= now + 0.1:  # the clock only paces silence: keep it near now
            self._start, due = now - self._sent * FRAME_SAMPLES / WIRE_RATE, now
        while len(self._buf) < FRAME_SAMPLES:
            left = due + self.grace_s - time.monotonic()
            if left <= 0:
                break
            self._more.clear()
            try:
                await asyncio.wait_for(self._more.wait(), left)
            except TimeoutError:
                break
        arrived = self._arrival_of_head()
        pcm = self._take(min(FRAME_SAMPLES, len(self._buf)))
        if arrived is not None and len(pcm):
            self.delays.add(time.monotonic() - arrived)
        if len(pcm) < FRAME_SAMPLES:
            pcm = np.concatenate([pcm, np.zeros(FRAME_SAMPLES - len(pcm), dtype=np.int16)])
        return self._frame(pcm)

    def _frame(self, pcm: np.ndarray) -> Any:
        import av

        frame = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = WIRE_RATE
        frame.pts = self._sent * FRAME_SAMPLES
        frame.time_base = fractions.Fraction(1, WIRE_RATE)
        self._sent += 1
        return frame


class ArrivalClock:
    """When each RTP packet of the product's audio reached the bridge, found again by a frame's ``pts``.

    aiortc gives a decoded frame a ``pts`` counted from the stream's first
    decoded RTP timestamp (its receiver's timestamp mapper); the receiver's
    packet handler is wrapped to note each packet's arrival by RTP timestamp.
    """

    def __init__(self, cap: int = 4096) -> None:
        self._at: dict[int, float] = {}
        self._order: deque[int] = deque()
        self._cap = cap
        self._receiver: Any = None
        self._first: int | None = None
        self.packets = 0
        self.last_packet: float | None = None
        """monotonic time of the last packet (the product's stream is alive)"""

    def watch(self, receiver: Any) -> None:
        """Wrap `receiver._handle_rtp_packet` (aiortc has no hook for a packet's arrival)."""
        original = receiver._handle_rtp_packet
        self._receiver = receiver
        clock = self

        async def handle(packet: Any, arrival_time_ms: int) -> None:
            clock.note(int(packet.timestamp))
            await original(packet, arrival_time_ms=arrival_time_ms)

        receiver._handle_rtp_packet = handle

    def note(self, rtp_timestamp: int) -> None:
        now = time.monotonic()
        self.packets += 1
        self.last_packet = now
        if self._first is None:
            self._first = rtp_timestamp
        if rtp_timestamp not in self._at:
            self._at[rtp_timestamp] = now
            self._order.append(rtp_timestamp)
            if len(self._order) > self._cap:
                self._at.pop(self._order.popleft(), None)

    def _origin(self) -> int | None:
        mapper = getattr(self._receiver, "_RTCRtpReceiver__timestamp_mapper", None)
        origin = getattr(mapper, "_origin", None)
        return origin if isinstance(origin, int) else self._first

    def arrival(self, pts: int | None) -> float | None:
        """When the packet behind a decoded frame's `pts` arrived; None if not known."""
        origin = self._origin()
        if pts is None or origin is None:
            return None
        return self._at.get((pts + origin) % (1 << 32))
