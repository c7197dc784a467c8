"""`webrtc`: a product reached over plain WebRTC with its own signalling, bridged into the room.

The model process joins the scenario's room as every pipeline model does;
this processor holds a second, real WebRTC peer connection (aiortc) to the
product and carries audio both ways, continuously: the room's audio goes to
the product as an Opus track (resampled to 48 kHz; silence while the room is
quiet), the product's audio track comes back, decoded, into the room. How the
offer reaches the product is the config's ``signalling`` (`webrtc_signalling`:
``pipecat``, ``whip``, ``openai``). A config::

    adapter: webrtc
    signalling: pipecat                      # pipecat | whip | openai
    url: http://127.0.0.1:7860/api/offer     # the offer endpoint
    api_key_env: null                        # bearer token for whip/openai: the variable's *name*
    model_id: my-bot

Failures never raise out of the pipeline; each is one ``ErrorFrame`` (so the
scenario fails as ``model_error``) with a line naming what broke and the fix:
the offer unanswered or refused (unreachable, timeout, HTTP 401/404/5xx, no
SDP), ICE/DTLS never connected, or the connection lost mid-scenario (closed,
failed, the product's audio stopped, a pipecat bot's ``peerLeft``).

The bridge's own delay each way (`webrtc_peer`) goes to the runner every
``MEASURE_EVERY_S`` as a ``ModelMeasured`` report; meta.json keeps the last in
``transport_latency_ms.bridge`` beside the room's transport latency.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar, Literal

import numpy as np
from loguru import logger
from pipecat.frames.frames import InputAudioRawFrame, OutputAudioRawFrame
from pipecat.processors.frame_processor import FrameProcessor
from pydantic import Field, field_validator, model_validator

from floorbench.processors.adapter_config import AdapterSettings, KeyFromEnv, Seconds, public_url
from floorbench.processors.registry import Model, ModelContext
from floorbench.processors.room_audio import ModelLinkProcessor
from floorbench.processors.webrtc_peer import ArrivalClock, DelayLog, RoomTrack, mono_int16
from floorbench.processors.webrtc_signalling import OPENAI_CALLS_URL, STYLES, Signalling, SignallingFailed
from floorbench.redact import redact_url
from floorbench.transports.loopback import release_for_peers

MEASURE_EVERY_S = 2.0
DELAY_METHOD = (
    "per 20 ms frame: room audio entering the bridge → handed to the Opus encoder (room_to_model); "
    "RTP packet from the product arriving → decoded audio pushed to the room (model_to_room)"
)
STALE_QUIET_S = 0.3
"""product audio that waited this long (a stalled loop) is dropped if quiet, so the delay cannot grow"""


class WebRTCBridge(ModelLinkProcessor):
    """The bridge processor; see the module docstring."""

    reports_measures: ClassVar[bool] = True
    lost_fix: ClassVar[str] = "check the product (its log says why) and run again"
    link_kind: ClassVar[str] = "webrtc"

    def __init__(
        self,
        *,
        signalling: Signalling,
        out_sample_rate: int,
        ice_servers: list[str] | None = None,
        ice_timeout_s: float = 15.0,
        media_timeout_s: float | None = 10.0,
        receive_prefetch_packets: int = 4,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.signalling = signalling
        self.out_rate = out_sample_rate
        self.ice_servers = list(ice_servers or [])
        self.ice_timeout_s = ice_timeout_s
        self.media_timeout_s = media_timeout_s
        self.prefetch = receive_prefetch_packets
        self.pc: Any = None
        self.room_track = RoomTrack()
        self.arrivals = ArrivalClock()
        self.to_room = DelayLog()
        self.connected_ms: int | None = None
        self.codec: str | None = None
        """the audio codec the product's answer chose (``opus/48000/2`` as a rule)"""
        self.dropped_stale_ms = 0
        self._resampler: Any = None
        self._resampler_rate = 0
        self._register_event_handler("on_model_measured")

    # --- pipecat plumbing --------------------------------------------------------

    async def on_room_audio(self, frame: InputAudioRawFrame) -> None:
        if self._ready.is_set():
            pcm = mono_int16(np.frombuffer(frame.audio, dtype=np.int16), frame.num_channels)
            self.room_track.feed(pcm, frame.sample_rate)

    # --- the connection ----------------------------------------------------------

    async def _run(self) -> None:
        try:
            await self._connect()
        except SignallingFailed as e:
            await self._fail(e.reason)
            return
        except Exception as e:  # aiortc refusing an answer, a bug: still one line, never a crash
            await self._fail(f"WebRTC setup with {self.signalling.public} failed ({type(e).__name__}: {e})")
            return
        self.connected_ms = int((time.monotonic() - self._t0) * 1000)
        logger.info(f"{self}: WebRTC connected to {self.signalling.public} in {self.connected_ms} ms")
        self._ready.set()
        await self._call_event_handler("on_model_connected")
        await self._watch()

    async def _connect(self) -> None:
        from aiortc import RTCConfiguration, RTCIceServer, RTCPeerConnection, RTCSessionDescription

        # a product outside loopback needs this process's sockets on every interface (transports/loopback.py)
        release_for_peers(self.signalling.url, *self.ice_servers)
        config = RTCConfiguration(iceServers=[RTCIceServer(urls=u) for u in self.ice_servers])
        pc = self.pc = RTCPeerConnection(config)
        transceiver = pc.addTransceiver(self.room_track, direction="sendrecv")
        self.arrivals.watch(transceiver.receiver)
        _set_prefetch(transceiver.receiver, self.prefetch)
        self.signalling.on_lost = self._lost
        self.signalling.on_error = self._product_error
        self.signalling.prepare(pc)

        @pc.on("track")
        def _track(track: Any) -> None:
            if track.kind == "audio":
                self._tasks.append(self.create_task(self._from_product(track), name=f"{self.name}-recv"))

        @pc.on("connectionstatechange")
        async def _state() -> None:
            if pc.connectionState in ("failed", "closed") and self._ready.is_set():
                await self._lost(f"the WebRTC connection to {self.signalling.public} is {pc.connectionState}")

        await pc.setLocalDescription(await pc.createOffer())  # aiortc gathers its candidates here
        answer = await self.signalling.exchange(pc.localDescription.sdp)
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
        self.codec = answer_codec(answer)
        try:
            async with asyncio.timeout(self.ice_timeout_s):
                while pc.connectionState != "connected":
                    if pc.connectionState in ("failed", "closed"):
                        break
                    await asyncio.sleep(0.02)
        except TimeoutError:
            pass
        if pc.connectionState != "connected":
            raise SignallingFailed(
                "ice",
                f"ICE/DTLS to {self.signalling.public} did not connect ({pc.connectionState} after "
                f"{self.ice_timeout_s:g} s): the answer's candidates are not reachable from here; "
                "check the product's network or add a STUN/TURN server in `ice_servers`",
            )

    async def _watch(self) -> None:
        """While connected: report the bridge's delay; a product whose audio stops is lost."""
        while not self._closing and not self._lost_reported:
            await asyncio.sleep(MEASURE_EVERY_S)
            await self._call_event_handler("on_model_measured", self.measures())
            last = self.arrivals.last_packet or self._t0 + (self.connected_ms or 0) / 1000
            if self.media_timeout_s is not None and time.monotonic() - last > self.media_timeout_s:
                await self._lost(
                    f"no audio from {self.signalling.public} for {self.media_timeout_s:g} s "
                    "(set `media_timeout_s: null` for a product that sends nothing while quiet)"
                )

    async def _from_product(self, track: Any) -> None:
        from aiortc.mediastreams import MediaStreamError

        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                await self._lost(f"the audio track from {self.signalling.public} ended")
                return
            await self._to_room(frame)

    async def _to_room(self, frame: Any) -> None:
        pcm = mono_int16(frame.to_ndarray().reshape(-1), len(frame.layout.channels))
        arrived = self.arrivals.arrival(frame.pts)
        now = time.monotonic()
        if arrived is not None and now - arrived > STALE_QUIET_S and np.abs(pcm).max(initial=0) < 100:
            self.dropped_stale_ms += len(pcm) * 1000 // frame.sample_rate
            return
        if frame.sample_rate != self.out_rate:
            if self._resampler is None or self._resampler_rate != frame.sample_rate:
                import soxr

                self._resampler = soxr.ResampleStream(frame.sample_rate, self.out_rate, 1, dtype="int16")
                self._resampler_rate = frame.sample_rate
            pcm = self._resampler.resample_chunk(pcm)
        if len(pcm):
            await self.push_frame(
                OutputAudioRawFrame(audio=pcm.tobytes(), sample_rate=self.out_rate, num_channels=1)
            )
        if arrived is not None:
            self.to_room.add(time.monotonic() - arrived)

    def measures(self) -> dict[str, Any]:
        """The bridge's own delay each way so far, and what it dropped (meta.json ``transport_latency_ms.bridge``)."""
        return {
            "style": self.signalling.style,
            "method": DELAY_METHOD,
            "room_to_model": self.room_track.delays.summary(),
            "model_to_room": self.to_room.summary(),
            "codec": self.codec,
            "connected_ms": self.connected_ms,
            "room_audio_cut_ms": self.room_track.dropped_ms,
            "stale_quiet_dropped_ms": self.dropped_stale_ms,
        }

    # --- failures and the end ----------------------------------------------------

    async def _fail(self, reason: str) -> None:
        """The connection never came up: one error naming the fix."""
        await self.push_error(f"{self.name}: {reason}")

    async def _product_error(self, what: str) -> None:
        await self.push_error(f"{self.name}: {self.signalling.public}: {what}")

    async def close_link(self) -> None:
        logger.info(f"{self}: closing; bridge delay {self.measures()}")
        await self.signalling.close()
        if self.pc is not None:
            try:
                await asyncio.wait_for(self.pc.close(), 3.0)
            except Exception:  # closing either way
                pass
        for t in self._tasks:
            await self.cancel_task(t, timeout=1.0)


def answer_codec(sdp: str) -> str | None:
    """The first codec of the answer's audio section (the one both sides send), e.g. ``opus/48000/2``."""
    in_audio, first_pt = False, None
    for line in sdp.splitlines():
        if line.startswith("m="):
            in_audio = line.startswith("m=audio")
            parts = line.split()
            first_pt = parts[3] if in_audio and len(parts) > 3 else None
        elif in_audio and first_pt and line.startswith(f"a=rtpmap:{first_pt} "):
            return line.split(" ", 1)[1].strip()
    return None


def _set_prefetch(receiver: Any, packets: int) -> None:
    """aiortc holds `packets` audio packets (20 ms each) before decoding the first; its default is 4.

    It has no setting for this, so the receiver's jitter buffer is replaced
    before any packet arrives (as pipecat does for its screen-share track).
    """
    if packets == 4:
        return
    from aiortc.jitterbuffer import JitterBuffer

    attr = "_RTCRtpReceiver__jitter_buffer"
    if hasattr(receiver, attr):
        setattr(receiver, attr, JitterBuffer(capacity=16, prefetch=packets))


class WebRTCSettings(AdapterSettings, KeyFromEnv):
    """The `webrtc` config (module docstring)."""

    signalling: Literal["pipecat", "whip", "openai"]
    url: str = ""
    """the offer endpoint (http/https); ``openai`` defaults to the Realtime calls endpoint"""
    model_id: str = "unknown (set `model_id` in the config)"
    headers: dict[str, str] = Field(default_factory=dict)
    """more HTTP headers for the offer (values are redacted in every record)"""
    connect_timeout_s: Seconds = 10.0
    """how long the offer may wait for its answer"""
    ice_timeout_s: Seconds = 15.0
    media_timeout_s: Seconds | None = 10.0
    """no audio packet from the product for this long is a lost connection (null: never)"""
    receive_prefetch_packets: int = Field(default=4, ge=0, le=8, strict=True)
    """audio packets aiortc buffers before decoding the product's stream (4, aiortc's default: about
    80 ms of the bridge's delay towards the room; fewer is faster and less tolerant of network jitter)"""
    ice_servers: list[str] = Field(default_factory=list)
    """``stun:``/``turn:`` URLs (credentials are not supported here yet)"""
    request_data: dict[str, Any] | None = None
    """``pipecat``: the offer's ``requestData`` (what the bot's runner passes to the bot)"""
    model: str = "gpt-realtime"
    """``openai``: the model of the call"""
    session: dict[str, Any] = Field(default_factory=dict)
    """``openai``: session settings sent as ``session.update`` on the events channel"""

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        if url and not url.startswith(("http://", "https://")):
            raise ValueError(f"must start with http:// or https://, got {redact_url(url)!r}")
        return url

    @model_validator(mode="after")
    def _url_needed(self) -> WebRTCSettings:
        if not self.url and self.signalling != "openai":
            raise ValueError(f"`url` is needed for `signalling: {self.signalling}` (the product's offer endpoint)")
        return self

    def endpoint(self) -> str:
        return self.url or OPENAI_CALLS_URL


class WebRTCModel(Model[WebRTCSettings], name="webrtc"):
    """A product behind plain WebRTC (module docstring)."""

    def __init__(self, ctx: ModelContext) -> None:
        super().__init__(ctx)
        s = self.settings
        self._key = s.api_key(self.name, required=s.api_key_env is not None or s.signalling == "openai")

    def processors(self) -> list[FrameProcessor]:
        s = self.settings
        signalling = STYLES[s.signalling](
            s.endpoint(),
            key=self._key,
            key_env=s.api_key_env,
            headers=s.headers,
            timeout_s=s.connect_timeout_s,
            options={"request_data": s.request_data, "model": s.model, "session": s.session},
        )
        bridge = WebRTCBridge(
            signalling=signalling,
            out_sample_rate=self.ctx.out_sample_rate,
            ice_servers=s.ice_servers,
            ice_timeout_s=s.ice_timeout_s,
            media_timeout_s=s.media_timeout_s,
            receive_prefetch_packets=s.receive_prefetch_packets,
            name=f"{self.name}-model",
        )
        return [bridge]

    def card(self) -> dict[str, Any]:
        card = super().card()
        s = self.settings
        card.update(model_id=s.model_id, endpoint=public_url(s.endpoint()), protocol=f"webrtc/{s.signalling}")
        return card
