"""`sip`: the room's phone line — the agent under test is called over SIP and heard over RTP.

The model process joins the scenario's room as every pipeline model does; this
processor places one call to the agent's SIP URI (`stack`, PJSIP) and carries
audio both ways for the whole scenario: the room's audio goes to the agent as
the caller's voice (G.711 or G.722, 20 ms packets; silence while the room is
quiet, as from a handset), the agent's decoded audio comes back into the room,
where the recorder records it like any model track. ``--via sip:URI`` on
`run`, `test` and `load` is this model with that URI; a config::

    adapter: sip
    uri: sip:agent@127.0.0.1:5070
    codecs: [PCMU, PCMA, G722]        # offered, in this order
    setup_timeout_s: 10               # INVITE → 200 OK
    rtp_loss_to_agent_pct: 0          # RTP dropped at random each way (PJMEDIA's simulation; `rtp_loss`)
    rtp_loss_from_agent_pct: 0
    rtp_jitter_to_agent: {delay_ms: 40, jitter_ms: 20}   # RTP held a seeded random time each way (`jitter`; `rtp_jitter`)
    rtp_jitter_from_agent: {delay_ms: 40, jitter_ms: 20}

What failed is one ``ErrorFrame`` (the scenario fails as ``model_error``,
never a pass) naming the phone's failure kind and the SIP status: no answer
(a silent or unreachable peer, 408/480), busy (486/600), declined (603/403),
a codec the agent refuses (488), dropped mid-call (a BYE from the agent, or no
RTP for ``media_timeout_s``). Every ``MEASURE_EVERY_S`` the leg's record goes
to the runner (meta.json ``transport_latency_ms.bridge``): codec and rate,
set-up time, RTP counters, the leg's own delay each way, and which clock
timed the agent (`measures`).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, ClassVar

import numpy as np
from loguru import logger
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    InputTransportMessageFrame,
    OutputAudioRawFrame,
    OutputTransportMessageUrgentFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pydantic import Field, field_validator

from floorbench.phone.jitter import JitterRelay, RtpJitter
from floorbench.phone.stack import CLOCK_RATE, CallState, SipStack
from floorbench.phone.uri import PhoneError, SipTarget, codec_names, parse_target
from floorbench.processors.adapter_config import AdapterSettings, ModelError, Seconds
from floorbench.processors.registry import Model, ModelContext
from floorbench.processors.room_audio import ModelLinkProcessor, RoomAudioProcessor
from floorbench.processors.webrtc_peer import DelayLog, mono_int16
from floorbench.scenarios.dtmf import DTMF_REQUEST, dtmf_problem

MEASURE_EVERY_S = 2.0
DELAY_METHOD = (
    "per 20 ms frame: room audio entering the leg → taken by PJSIP's media clock for encoding (room_to_model); "
    "the agent's decoded frame leaving PJSIP's jitter buffer → pushed to the room (model_to_room)"
)
AGENT_CLOCK = "receiver"
"""the agent is timed when its audio reaches the leg: PJSIP does not hand its peer's RTCP sender reports to the
application, so the agent's RTP timestamps are not mapped to its own wall clock"""


def rtp_loss(asked: tuple[int, int], rtp: dict[str, Any]) -> dict[str, Any]:
    """RTP loss on the leg, asked (``rtp_loss_to_agent_pct``, ``rtp_loss_from_agent_pct``) and realised, in % of
    packets: back from the leg's own receiver; towards the agent from the peer's RTCP receiver reports (None
    without them), as of its last report, so it reads low by the packets sent since (PJSIP reports every ~5 s).
    The PLC of the receiving jitter buffer fills what is lost."""

    def pct(lost: Any, got: Any) -> float | None:
        return round(100 * lost / (lost + got), 1) if isinstance(lost, int) and isinstance(got, int) and lost + got else None

    sent, peer_lost = rtp.get("tx_packets"), rtp.get("peer_lost")
    return {"asked_to_agent_pct": asked[0], "asked_from_agent_pct": asked[1],
            "to_agent_pct": pct(peer_lost, sent - peer_lost) if isinstance(sent, int) and isinstance(peer_lost, int)
            and rtp.get("rtt_ms") is not None else None,
            "from_agent_pct": pct(rtp.get("lost"), rtp.get("rx_packets"))}


def rtp_jitter(relay: dict[str, Any], rtp: dict[str, Any], peer: dict[str, Any]) -> dict[str, Any]:
    """RTP jitter on the leg (``rtp_jitter_to_agent``, ``rtp_jitter_from_agent``): per way, what the relay was
    asked and did (`JitterRelay.record`), and what the receiving end measured — back from the agent, the leg's own
    receiver (RFC 3550 jitter, packets its jitter buffer discarded as late, its delay); towards the agent, the
    agent end's RTCP receiver reports (jitter, lost), as of its last one (PJSIP sends one about every 5 s)."""
    return {
        "to_agent": {**relay["to_agent"], "receiver": {**peer, "lost": rtp.get("peer_lost")}},
        "from_agent": {**relay["from_agent"], "receiver": {k: rtp.get(k) for k in (
            "jitter_ms", "jitter_max_ms", "late", "lost", "jitter_buffer_ms")}},
    }


def agent_clock(rtp: dict[str, Any]) -> str:
    """Which clock timed the agent, and whether the peer sent RTCP at all (meta.json ``agent_clock``)."""
    rtt = rtp.get("rtt_ms")
    why = (f"the peer sends RTCP reports (RTT {rtt} ms) but pjsua2 does not expose their sender timestamps"
           if rtt is not None else "the peer sent no RTCP report")
    return f"{AGENT_CLOCK}: the agent's audio is timed when it reaches the phone leg; {why}"


BUSY, DECLINED, NO_ANSWER = {486, 600}, {603, 403}, {408, 480, 487}


def failure(status: int | None, reason: str, uri: str, codecs: list[str]) -> tuple[str, str]:
    """(failure kind, one line naming the fix) of a call that was not answered."""
    said = f"SIP {status} {reason}".strip() if status else "no SIP response"
    if status in BUSY:
        return "busy", f"{uri} is busy ({said}); free the line or raise the agent's call limit"
    if status in DECLINED:
        return "declined", f"{uri} declined the call ({said}); check the agent accepts calls from floorbench"
    if status == 488:
        return "codec_refused", (f"{uri} refused every codec offered ({', '.join(codecs)}; {said}); "
                                 "set `codecs:` to one the agent accepts")
    if status in (401, 407):
        return "declined", f"{uri} asks for credentials ({said}); set FLOORBENCH_SIP_USER and FLOORBENCH_SIP_PASSWORD"
    if status is None or status in NO_ANSWER or status < 200:
        return "no_answer", (f"{uri} did not answer ({said}); start the agent's SIP endpoint, check the URI's "
                             "host and port, or raise `setup_timeout_s`")
    return "refused", f"{uri} refused the call ({said}); the agent's log says why"


class PhoneLeg(ModelLinkProcessor):
    """The phone line into the room; see the module docstring."""

    reports_measures: ClassVar[bool] = True
    lost_fix: ClassVar[str] = "check the agent's SIP endpoint (its log says why) and run again"
    link_kind: ClassVar[str] = "sip"

    def __init__(self, *, target: SipTarget, codecs: list[str], out_sample_rate: int, setup_timeout_s: float,
                 media_timeout_s: float | None, headers: dict[str, str] | None = None, bind: str = "127.0.0.1",
                 loss_pct: tuple[int, int] = (0, 0), jitter: tuple[RtpJitter | None, RtpJitter | None] = (None, None),
                 name: str | None = None) -> None:
        super().__init__(name=name)
        self.target, self.codecs, self.out_rate = target, codecs, out_sample_rate
        self.setup_timeout_s, self.media_timeout_s = setup_timeout_s, media_timeout_s
        self.bind, self.loss_pct, self.jitter = bind, loss_pct, jitter
        self.relay: JitterRelay | None = None
        """the call's RTP through a jitter relay, when either way asks for jitter (`jitter`)"""
        self.call = CallState(headers=dict(headers or {}))
        self.stack: SipStack | None = None
        self.to_room = DelayLog()
        self.failure_kind: str | None = None
        self._inbox: asyncio.Queue[tuple[bytes, float]] = asyncio.Queue()
        self._to_rate: Any = None
        self._from_rate: dict[int, Any] = {}
        self.dtmf_sent: list[str] = []
        self._register_event_handler("on_model_measured")

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, InputTransportMessageFrame) and isinstance(frame.message, dict) \
                and frame.message.get("floorbench") == DTMF_REQUEST:
            await super(RoomAudioProcessor, self).process_frame(frame, direction)
            await self.send_dtmf(str(frame.message.get("digits", "")), frame.message.get("duration_ms"),
                                 frame.message.get("step"))
            return
        await super().process_frame(frame, direction)

    async def send_dtmf(self, digits: str, duration_ms: object = None, step: object = None) -> None:
        """Send `digits` to the agent as RFC 4733 telephone events (each held `duration_ms`); a timeline
        marker says when (with the test's `step` that asked, if one did)."""
        problem = dtmf_problem(digits, duration_ms)
        if problem is not None:
            await self.push_error(f"{self.name}: {problem}")
            return
        if not self._ready.is_set() or self.stack is None:
            await self.push_error(f"{self.name}: DTMF {digits!r} asked before the call was answered")
            return
        stack = self.stack
        held = duration_ms if isinstance(duration_ms, int) else None
        await asyncio.wrap_future(stack.submit(lambda: stack.send_dtmf(self.call, digits, held)))
        self.dtmf_sent.append(digits)
        await self._marker({"event": "dtmf", "direction": "to_agent", "digits": digits,
                            **({"step": step} if isinstance(step, int) else {})})

    async def _marker(self, record: dict[str, Any]) -> None:
        """A data message in the room: the recorder writes it on the timeline."""
        record = {"source": "phone", "wall_ns": time.time_ns(), **record}
        await self.push_frame(OutputTransportMessageUrgentFrame(message=json.dumps(record)))

    async def on_room_audio(self, frame: InputAudioRawFrame) -> None:
        if not self._ready.is_set():
            return
        pcm = mono_int16(np.frombuffer(frame.audio, dtype=np.int16), frame.num_channels)
        if frame.sample_rate != CLOCK_RATE:
            pcm = self._resample_in(frame.sample_rate, pcm)
        self.call.outbox.feed(pcm.tobytes())

    def _resample_in(self, rate: int, pcm: np.ndarray) -> np.ndarray:
        if rate not in self._from_rate:
            import soxr

            self._from_rate[rate] = soxr.ResampleStream(rate, CLOCK_RATE, 1, dtype="int16")
        return self._from_rate[rate].resample_chunk(pcm)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        self.call.on_audio = lambda pcm, t: loop.call_soon_threadsafe(self._inbox.put_nowait, (pcm, t))
        self.call.on_digit = lambda d, t: loop.call_soon_threadsafe(
            lambda: self.create_task(self._marker({"event": "dtmf", "direction": "from_agent", "digits": d})))
        if self.jitter != (None, None):
            try:
                self.relay = JitterRelay(self.bind, *self.jitter).start()
            except OSError as e:
                await self._fail("stack", f"the RTP jitter relay could not start on {self.bind} ({e})")
                return
            self.call.rewrite_offer = self.relay.offer
        try:
            self.stack = await asyncio.to_thread(lambda: SipStack.shared(
                bind=self.bind, tx_drop_pct=self.loss_pct[0], rx_drop_pct=self.loss_pct[1]))
            await asyncio.wrap_future(self.stack.submit(lambda: self._place()))
        except PhoneError as e:
            await self._fail("stack", str(e))
            return
        except Exception as e:  # pj.Error placing the call (an address PJSIP cannot use)
            await self._fail("refused", f"calling {self.target.uri} failed ({_pj_text(e)}); check the URI")
            return
        answered = await asyncio.to_thread(self._wait_answer)
        if not answered:
            kind, line = failure(self.call.status, self.call.reason, self.target.uri, self.codecs)
            await self._hangup()
            await self._fail(kind, line)
            return
        logger.info(f"{self}: {self.target.uri} answered in {self.call.setup_ms} ms, {self.call.codec}")
        self._ready.set()
        await self._call_event_handler("on_model_connected")
        await self._marker({"event": "answered", "codec": self.call.codec, "codec_sample_rate": self.call.codec_rate,
                            "setup_ms": self.call.setup_ms})
        self._tasks.append(self.create_task(self._from_phone(), name=f"{self.name}-recv"))
        await self._watch()

    def _place(self) -> None:
        assert self.stack is not None
        self.stack.call(self.target.uri, self.call, self.codecs)

    def _wait_answer(self) -> bool:
        """Blocks (a worker thread) until answered, refused or `setup_timeout_s`."""
        t_end = time.monotonic() + self.setup_timeout_s
        while time.monotonic() < t_end:
            if self.call.answered.wait(0.02) and self.call.codec is not None:
                return True
            if self.call.ended.is_set():
                return False
        return False

    async def _watch(self) -> None:
        last_rx, last_change = -1, time.monotonic()
        while not self._closing and not self._lost_reported:
            await asyncio.sleep(MEASURE_EVERY_S if not self.call.ended.is_set() else 0)
            if self.call.ended.is_set() and not self.call.hung_up_by_us:
                self.failure_kind = "dropped"
                said = f"SIP {self.call.status} {self.call.reason}".strip()
                await self._measure()
                await self._lost(f"{self.target.uri} dropped the call mid-scenario ({said})")
                return
            await self._measure()
            rx = int(self.call.stats.get("rx_packets", 0))
            if rx != last_rx:
                last_rx, last_change = rx, time.monotonic()
            elif self.media_timeout_s is not None and time.monotonic() - last_change > self.media_timeout_s:
                self.failure_kind = "dropped"
                await self._lost(f"no RTP from {self.target.uri} for {self.media_timeout_s:g} s "
                                 "(set `media_timeout_s: null` for an agent that sends nothing while quiet)")
                return

    async def _measure(self) -> None:
        if self.stack is not None and not self.call.ended.is_set():
            stack = self.stack
            await asyncio.wrap_future(stack.submit(lambda: stack.read_stats(self.call)))
        await self._call_event_handler("on_model_measured", self.measures())

    async def _from_phone(self) -> None:
        import soxr

        if self.out_rate != CLOCK_RATE:
            self._to_rate = soxr.ResampleStream(CLOCK_RATE, self.out_rate, 1, dtype="int16")
        while True:
            data, arrived = await self._inbox.get()
            pcm = np.frombuffer(data, dtype=np.int16)
            if self._to_rate is not None:
                pcm = self._to_rate.resample_chunk(pcm)
            if len(pcm):
                await self.push_frame(OutputAudioRawFrame(audio=pcm.tobytes(), sample_rate=self.out_rate,
                                                          num_channels=1))
            self.to_room.add(time.monotonic() - arrived)

    def measures(self) -> dict[str, Any]:
        """The leg's record (meta.json ``transport_latency_ms.bridge``); times in integer ms or ms figures."""
        c = self.call
        out_waits = DelayLog()
        for w in list(c.outbox.waits):
            out_waits.add(w)
        return {
            "style": "sip", "method": DELAY_METHOD, "uri": self.target.uri,
            "codec": c.codec, "codec_sample_rate": c.codec_rate, "codecs_offered": self.codecs,
            "setup_ms": c.setup_ms, "sip_status": c.status, "failure": self.failure_kind,
            "rtp": dict(c.stats), "room_to_model": out_waits.summary(), "model_to_room": self.to_room.summary(),
            "room_audio_cut_ms": c.outbox.cut_ms, "agent_clock": agent_clock(c.stats),
            "dtmf_received": [d for d, _ in c.digits], "dtmf_sent": list(self.dtmf_sent),
            "rtp_loss": rtp_loss(self.loss_pct, c.stats),
            **({"rtp_jitter": rtp_jitter(self.relay.record(), c.stats, c.peer_jitter)} if self.relay is not None else {}),
        }

    async def _fail(self, kind: str, line: str) -> None:
        self.failure_kind = kind
        await self._call_event_handler("on_model_measured", self.measures())
        await self.push_error(f"{self.name}: phone {kind.replace('_', ' ')}: {line}")

    async def _hangup(self) -> None:
        if self.stack is not None:
            stack = self.stack
            try:
                await asyncio.wait_for(asyncio.wrap_future(stack.submit(lambda: stack.hangup(self.call))), 3.0)
            except Exception:  # the call is gone either way
                pass

    async def close_link(self) -> None:
        await self._hangup()
        logger.info(f"{self}: closing; phone leg {self.measures()}")
        if self.relay is not None:
            await asyncio.to_thread(self.relay.stop)
        for t in self._tasks:
            await self.cancel_task(t, timeout=1.0)


def _pj_text(e: Exception) -> str:
    info = getattr(e, "info", None)
    return str(info() if callable(info) else e).strip().splitlines()[0]


class SipSettings(AdapterSettings):
    """The `sip` config (module docstring)."""

    uri: str
    """the agent's SIP URI, ``sip:[user@]host[:port]``"""
    codecs: list[str] = Field(default_factory=lambda: ["PCMU", "PCMA", "G722"])
    """offered in this order: PCMU (G.711 µ-law), PCMA (G.711 A-law), G722"""
    setup_timeout_s: Seconds = 10.0
    """INVITE → 200 OK; no answer by then is a failed call (no_answer)"""
    media_timeout_s: Seconds | None = 10.0
    """no RTP from the agent for this long is a dropped call (null: never)"""
    allow_remote: bool = False
    """call an address that is not on this machine (a real trunk or carrier number)"""
    bind: str = "127.0.0.1"
    """the local address of the leg's SIP and RTP sockets: a remote agent needs one it can reach back"""
    rtp_loss_to_agent_pct: int = Field(default=0, ge=0, le=50)
    """RTP packets of the caller's audio dropped at random before they leave (PJMEDIA's loss simulation)"""
    rtp_loss_from_agent_pct: int = Field(default=0, ge=0, le=50)
    """RTP packets of the agent's audio dropped at random as they arrive, before the leg's jitter buffer"""
    rtp_jitter_to_agent: RtpJitter | None = None
    """the caller's RTP (and RTCP) held a seeded random time on its way, through a relay (`jitter`); null: straight"""
    rtp_jitter_from_agent: RtpJitter | None = None
    """the agent's RTP (and RTCP) held likewise before the leg's jitter buffer; either way set puts both through it"""
    model_id: str = "unknown (set `model_id` in the config)"

    @field_validator("codecs")
    @classmethod
    def _codecs(cls, v: list[str]) -> list[str]:
        try:
            return codec_names(v)
        except PhoneError as e:
            raise ValueError(str(e)) from None

    @field_validator("bind")
    @classmethod
    def _bind(cls, v: str) -> str:
        import ipaddress

        try:
            return str(ipaddress.ip_address(v))
        except ValueError:
            raise ValueError(f"must be an IP address of this machine (127.0.0.1, 0.0.0.0, …), got {v!r}") from None

    def target(self) -> SipTarget:
        return parse_target(self.uri, allow_remote=self.allow_remote)


class SipModel(Model[SipSettings], name="sip"):
    """An agent reached over a phone line (module docstring)."""

    def __init__(self, ctx: ModelContext) -> None:
        super().__init__(ctx)
        try:
            self.target = self.settings.target()
        except PhoneError as e:
            raise ModelError(str(e)) from None

    def processors(self) -> list[FrameProcessor]:
        s, ctx = self.settings, self.ctx
        headers: dict[str, str] = {}
        if self.target.loopback and ctx.scenario is not None and ctx.suite_root is not None:
            # floorbench's own agent end (`agent`) plays reference agents that read the script
            headers = {"X-Floorbench-Suite": str(ctx.suite_root.resolve()),
                       "X-Floorbench-Scenario": ctx.scenario.scenario_id}
        return [PhoneLeg(target=self.target, codecs=s.codecs, out_sample_rate=ctx.out_sample_rate,
                         setup_timeout_s=s.setup_timeout_s, media_timeout_s=s.media_timeout_s, headers=headers, bind=s.bind,
                         loss_pct=(s.rtp_loss_to_agent_pct, s.rtp_loss_from_agent_pct),
                         jitter=(s.rtp_jitter_to_agent, s.rtp_jitter_from_agent), name=f"{self.name}-model")]

    def card(self) -> dict[str, Any]:
        card = super().card()
        card.update(model_id=self.settings.model_id, endpoint=self.target.uri, protocol="sip/rtp")
        return card
