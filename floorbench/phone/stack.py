"""One PJSIP endpoint (pjsua2) per process, run by a thread of its own, with PCM ports for calls.

pjsua2 allows one `Endpoint` per process (``libInit`` once), and every thread
that calls it must be registered with it. Its worker threads and asyncio do not
mix well, so the endpoint runs with no worker threads of its own
(``threadCnt = 0``): one Python thread, `SipStack`'s, creates it, polls its
events (``libHandleEvents``) and runs every command the rest of the process
submits (`SipStack.submit`, a future). The media clock is pjsua's null sound
device (no sound card), which paces the conference bridge at 20 ms; each
call's audio is connected to a `PcmPort` (a custom ``AudioMediaPort``) that
hands out what the caller says (`Outbox`) and passes on what the far end says,
each 20 ms frame stamped with the monotonic time it crossed.

Only the stack is here; what a call means (the room's phone line, the agent's
end) is `leg` and `agent`.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from floorbench.phone.uri import CODECS, PhoneError

CLOCK_RATE = 16000
"""the conference bridge's rate: G.722 is 16 kHz; G.711 is resampled from 8 kHz by PJSIP"""
PTIME_MS = 20
FRAME_SAMPLES = CLOCK_RATE * PTIME_MS // 1000
FRAME_BYTES = FRAME_SAMPLES * 2
MAX_CALLS = 32
"""calls at once per endpoint (PJSUA's compiled-in limit): an agent end under `floorbench load`"""
INSTALL_FIX = "install it with `pip install pjsua2-python` (scripts/setup.sh does)"


def load_pjsua2() -> Any:
    """The pjsua2 module, or one `PhoneError` line naming the fix."""
    try:
        import pjsua2
    except ImportError as e:
        raise PhoneError(f"the SIP stack is missing (cannot import pjsua2: {e}); {INSTALL_FIX}") from None
    return pjsua2


class Outbox:
    """PCM waiting to go out on the call (any thread feeds it, the media clock takes 20 ms at a time).

    Each chunk keeps the monotonic time it was fed, so the wait in the box is
    known per frame (`waits`). More than `max_ms` queued (a stalled clock) is
    cut from the old end: live audio, never delayed audio.
    """

    def __init__(self, max_ms: int = 200) -> None:
        self._lock = threading.Lock()
        self._chunks: deque[tuple[bytes, float]] = deque()
        self._bytes = 0
        self.max_bytes = max_ms * CLOCK_RATE // 1000 * 2
        self.cut_ms = 0
        self.waits: deque[float] = deque(maxlen=100_000)

    def feed(self, pcm: bytes, t: float | None = None) -> None:
        with self._lock:
            self._chunks.append((pcm, time.monotonic() if t is None else t))
            self._bytes += len(pcm)
            while self._bytes > self.max_bytes and self._chunks:
                old, _ = self._chunks.popleft()
                self._bytes -= len(old)
                self.cut_ms += len(old) * 1000 // (CLOCK_RATE * 2)

    def take(self, n: int = FRAME_BYTES) -> bytes:
        """`n` bytes (silence where nothing is queued)."""
        out = bytearray()
        now = time.monotonic()
        with self._lock:
            first = None
            while len(out) < n and self._chunks:
                pcm, t = self._chunks.popleft()
                first = t if first is None else first
                need = n - len(out)
                out += pcm[:need]
                if len(pcm) > need:
                    self._chunks.appendleft((pcm[need:], t))
                self._bytes -= min(need, len(pcm))
            if first is not None:
                self.waits.append(now - first)
        return bytes(out) + b"\0" * (n - len(out))

    def clear(self) -> None:
        with self._lock:
            self._chunks.clear()
            self._bytes = 0


@dataclass
class CallState:
    """One call as the rest of the process sees it (written by the stack thread, read anywhere)."""

    uri: str = ""
    outgoing: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    t_invite: float | None = None
    t_ringing: float | None = None
    t_answered: float | None = None
    t_ended: float | None = None
    status: int | None = None
    """the last SIP status (200 once answered; 486, 603, 408 … when refused)"""
    reason: str = ""
    codec: str | None = None
    codec_rate: int | None = None
    hung_up_by_us: bool = False
    digits: list[tuple[str, float]] = field(default_factory=list)
    answered: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)
    outbox: Outbox = field(default_factory=Outbox)
    on_audio: Callable[[bytes, float], object] | None = None
    on_digit: Callable[[str, float], object] | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    peer_jitter: dict[str, Any] = field(default_factory=dict)
    """the interarrival jitter of the packets sent, as the peer's RTCP receiver reports say (read with `stats`;
    only the jitter relay's record shows it)"""
    rewrite_offer: Callable[[str], str] | None = None
    """the SDP the call offers, rewritten before it goes (stack thread): the jitter relay names its own ports"""
    handle: Any = None
    """the pjsua2 Call (stack thread only)"""

    @property
    def setup_ms(self) -> int | None:
        if self.t_invite is None or self.t_answered is None:
            return None
        return int((self.t_answered - self.t_invite) * 1000)


def _classes(pj: Any) -> tuple[type, type, type]:
    """The pjsua2 subclasses (defined once pjsua2 is imported)."""

    class PcmPort(pj.AudioMediaPort):
        def __init__(self, state: CallState) -> None:
            super().__init__()
            self.state = state
            fmt = pj.MediaFormatAudio()
            fmt.init(pj.PJMEDIA_FORMAT_PCM, CLOCK_RATE, 1, PTIME_MS * 1000, 16)
            self.createPort(f"fb-{id(self)}", fmt)

        def onFrameRequested(self, frame: Any) -> None:
            frame.type = pj.PJMEDIA_FRAME_TYPE_AUDIO
            frame.buf = pj.ByteVector(self.state.outbox.take())
            frame.size = FRAME_BYTES

        def onFrameReceived(self, frame: Any) -> None:
            if self.state.on_audio is not None and frame.type == pj.PJMEDIA_FRAME_TYPE_AUDIO:
                self.state.on_audio(bytes(frame.buf), time.monotonic())

    class PhoneCallHandle(pj.Call):
        def __init__(self, acc: Any, state: CallState, call_id: int = pj.PJSUA_INVALID_ID) -> None:
            super().__init__(acc, call_id)
            self.state = state
            self.port: Any = None

        def onCallState(self, prm: Any) -> None:
            info = self.getInfo()
            st, now = self.state, time.monotonic()
            st.status, st.reason = int(info.lastStatusCode), str(info.lastReason)
            if info.state == pj.PJSIP_INV_STATE_EARLY and st.t_ringing is None:
                st.t_ringing = now
            elif info.state == pj.PJSIP_INV_STATE_CONFIRMED and st.t_answered is None:
                st.t_answered = now
                st.answered.set()
            elif info.state == pj.PJSIP_INV_STATE_DISCONNECTED:
                st.t_ended = now
                st.ended.set()

        def onCallMediaState(self, prm: Any) -> None:
            info = self.getInfo()
            for i, mi in enumerate(info.media):
                if mi.type != pj.PJMEDIA_TYPE_AUDIO or mi.status != pj.PJSUA_CALL_MEDIA_ACTIVE:
                    continue
                if self.port is None:
                    self.port = PcmPort(self.state)
                am = self.getAudioMedia(i)
                am.startTransmit(self.port)
                self.port.startTransmit(am)
                si = self.getStreamInfo(i)
                self.state.codec, self.state.codec_rate = str(si.codecName), int(si.codecClockRate)

        def onCallSdpCreated(self, prm: Any) -> None:
            if self.state.rewrite_offer is not None and self.state.outgoing:
                prm.sdp.wholeSdp = self.state.rewrite_offer(str(prm.sdp.wholeSdp))

        def onDtmfDigit(self, prm: Any) -> None:
            self.state.digits.append((str(prm.digit), time.monotonic()))
            if self.state.on_digit is not None:
                self.state.on_digit(str(prm.digit), time.monotonic())

    class Account(pj.Account):
        def __init__(self, stack: SipStack) -> None:
            super().__init__()
            self.stack = stack

        def onIncomingCall(self, prm: Any) -> None:
            self.stack._incoming(self, prm)

    return PcmPort, PhoneCallHandle, Account


class SipStack:
    """The process's one SIP endpoint, in its own thread; see the module docstring.

    `on_incoming(state) -> status` decides what an incoming call gets: 200
    answers it, 180 lets it ring (no answer), 486 busy, 603 declined.
    """

    _instance: SipStack | None = None

    def __init__(self, bind: str = "127.0.0.1", port: int = 0, codecs: list[str] | None = None,
                 on_incoming: Callable[[CallState], int] | None = None, quiet_start: bool = False,
                 tx_drop_pct: int = 0, rx_drop_pct: int = 0) -> None:
        self.pj = load_pjsua2()
        self.bind, self.port = bind, port
        self.drop_pct = (tx_drop_pct, rx_drop_pct)
        """RTP packets dropped at random on the way out and on the way in (PJMEDIA's loss simulation, per endpoint)"""
        self.codecs = codecs or ["PCMU", "PCMA", "G722"]
        self.on_incoming = on_incoming
        self.quiet_start = quiet_start
        """PJSIP logs its start to stdout before any setting applies: hidden where stdout is a JSON log and
        no other thread writes to it yet (the agent end, the gateway); never in a model process"""
        self.calls: list[CallState] = []
        self.rtcp: dict[str, Any] = {}
        self._cmds: queue.Queue[tuple[Callable[[], Any], concurrent.futures.Future[Any]] | None] = queue.Queue()
        self._ready = threading.Event()
        self._error: str | None = None
        self._thread = threading.Thread(target=self._main, name="sip-stack", daemon=True)
        self.ep: Any = None
        self.acc: Any = None

    @classmethod
    def shared(cls, **kw: Any) -> SipStack:
        """The process's stack, started on first use (pjsua2: one endpoint per process). Its RTP loss is set as
        it starts, for every call it makes: a later call that asks for other loss is refused."""
        if cls._instance is None:
            cls._instance = cls(**kw)
            cls._instance.start()
        drop = (kw.get("tx_drop_pct", 0), kw.get("rx_drop_pct", 0))
        if drop != cls._instance.drop_pct:
            raise PhoneError(f"RTP loss {drop} asked of a SIP stack started with {cls._instance.drop_pct}: one loss "
                             "setting per process (each model process places one call)")
        return cls._instance

    def start(self, timeout_s: float = 10.0) -> None:
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise PhoneError(f"the SIP stack did not start within {timeout_s:g} s")
        if self._error:
            raise PhoneError(self._error)

    def submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        """Run `fn` in the stack's thread (every pjsua2 call goes through here)."""
        fut: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._cmds.put((fn, fut))
        return fut

    def _main(self) -> None:
        pj = self.pj
        try:
            self._init(pj)
        except Exception as e:  # pj.Error: a port taken, an address not here
            info = getattr(e, "info", None)
            text = str(info() if callable(info) else e)
            self._error = f"the SIP stack could not start on {self.bind}:{self.port} ({text.strip()}); pick another port"
            self._ready.set()
            return
        self._ready.set()
        while True:
            self.ep.libHandleEvents(5)
            try:
                while True:
                    item = self._cmds.get_nowait()
                    if item is None:
                        self._shutdown()
                        return
                    fn, fut = item
                    try:
                        fut.set_result(fn())
                    except Exception as e:
                        fut.set_exception(e)
            except queue.Empty:
                pass

    def _init(self, pj: Any) -> None:
        ep = self.ep = pj.Endpoint()
        if self.quiet_start:
            import os
            import sys

            sys.stdout.flush()
            saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            try:
                ep.libCreate()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
                os.close(null)
        else:
            ep.libCreate()
        cfg = pj.EpConfig()
        cfg.uaConfig.threadCnt = 0
        cfg.uaConfig.mainThreadOnly = False
        cfg.uaConfig.userAgent = "floorbench-phone"
        cfg.uaConfig.maxCalls = MAX_CALLS
        cfg.logConfig.level = 0
        cfg.logConfig.consoleLevel = 0
        cfg.medConfig.clockRate = CLOCK_RATE
        cfg.medConfig.sndClockRate = CLOCK_RATE
        cfg.medConfig.audioFramePtime = PTIME_MS
        cfg.medConfig.ecTailLen = 0
        cfg.medConfig.noVad = True
        cfg.medConfig.txDropPct, cfg.medConfig.rxDropPct = self.drop_pct
        ep.libInit(cfg)
        tcfg = pj.TransportConfig()
        tcfg.port = self.port
        tcfg.boundAddress = self.bind
        tid = ep.transportCreate(pj.PJSIP_TRANSPORT_UDP, tcfg)
        self.port = int(ep.transportGetInfo(tid).localName.rsplit(":", 1)[1])
        ep.libStart()
        ep.audDevManager().setNullDev()
        self.set_codecs(self.codecs)
        _, _, account_cls = _classes_cached(pj)
        acfg = pj.AccountConfig()
        acfg.idUri = f"sip:floorbench@{self.bind}:{self.port}"
        acfg.mediaConfig.transportConfig.boundAddress = self.bind
        from floorbench.phone.uri import credentials

        cred = credentials()
        if cred is not None:
            acfg.sipConfig.authCreds.append(pj.AuthCredInfo("digest", "*", cred[0], 0, cred[1]))
        self.acc = account_cls(self)
        self.acc.create(acfg)

    def set_codecs(self, names: list[str]) -> None:
        """Offer only `names`, in that order (stack thread)."""
        wanted = {CODECS[n].lower(): 255 - i for i, n in enumerate(names)}
        for c in self.ep.codecEnum2():
            self.ep.codecSetPriority(c.codecId, wanted.get(str(c.codecId).lower(), 0))

    def call(self, uri: str, state: CallState, codecs: list[str]) -> CallState:
        """Place a call (stack thread; submit it): INVITE now, the state follows in `state`."""
        pj = self.pj
        _, handle_cls, _ = _classes_cached(pj)
        self.set_codecs(codecs)
        h = handle_cls(self.acc, state)
        prm = pj.CallOpParam(True)
        prm.opt.audioCount, prm.opt.videoCount = 1, 0
        for k, v in state.headers.items():
            sh = pj.SipHeader()
            sh.hName, sh.hValue = k, v
            prm.txOption.headers.append(sh)
        state.uri, state.handle, state.t_invite = uri, h, time.monotonic()
        self.calls.append(state)
        h.makeCall(uri, prm)
        return state

    def _incoming(self, acc: Any, prm: Any) -> None:
        pj = self.pj
        _, handle_cls, _ = _classes_cached(pj)
        state = CallState(outgoing=False, headers=_x_headers(str(prm.rdata.wholeMsg)))
        h = handle_cls(acc, state, prm.callId)
        state.handle, state.t_invite = h, time.monotonic()
        self.calls.append(state)
        status = self.on_incoming(state) if self.on_incoming else 200
        op = pj.CallOpParam()
        op.statusCode = status
        h.answer(op)

    def hangup(self, state: CallState) -> None:
        """End a call (stack thread); quiet if it has ended already."""
        if state.handle is None or state.ended.is_set():
            return
        self.read_stats(state)
        state.hung_up_by_us = True
        op = self.pj.CallOpParam()
        op.statusCode = 603 if state.t_answered is None and not state.outgoing else 0
        try:
            state.handle.hangup(op)
        except Exception:  # ended meanwhile
            pass

    def read_stats(self, state: CallState) -> dict[str, Any]:
        """RTP counters of the call's audio stream (stack thread): received packets, lost, late, jitter; `peer_lost`:
        the packets sent that the peer's RTCP receiver reports count as lost."""
        h = state.handle
        if h is None or state.codec is None or state.ended.is_set():
            return state.stats
        try:
            ss = h.getStreamStat(0)
        except Exception:
            return state.stats
        rx, jb = ss.rtcp.rxStat, ss.jbuf
        state.stats = {
            "rx_packets": int(rx.pkt), "tx_packets": int(ss.rtcp.txStat.pkt), "lost": int(rx.loss),
            "peer_lost": int(ss.rtcp.txStat.loss), "late": int(jb.discard), "jitter_ms": round(rx.jitterUsec.mean / 1000, 1) if rx.jitterUsec.n else None,
            "jitter_max_ms": round(rx.jitterUsec.max / 1000, 1) if rx.jitterUsec.n else None,
            "jitter_buffer_ms": int(jb.avgDelayMsec), "rtt_ms": round(ss.rtcp.rttUsec.mean / 1000, 1)
            if ss.rtcp.rttUsec.n else None,
        }
        tx = ss.rtcp.txStat
        state.peer_jitter = {"jitter_ms": round(tx.jitterUsec.mean / 1000, 1) if tx.jitterUsec.n else None,
                             "jitter_max_ms": round(tx.jitterUsec.max / 1000, 1) if tx.jitterUsec.n else None}
        return state.stats

    def send_dtmf(self, state: CallState, digits: str, duration_ms: int | None = None) -> None:
        """RFC 4733 telephone events, each held `duration_ms` (None: PJSIP's 160 ms) (stack thread)."""
        prm = self.pj.CallSendDtmfParam()
        prm.digits = digits
        if duration_ms is not None:
            prm.duration = duration_ms
        prm.method = self.pj.PJSUA_DTMF_METHOD_RFC2833
        state.handle.sendDtmf(prm)

    def stop(self, timeout_s: float = 3.0) -> None:
        self._cmds.put(None)
        self._thread.join(timeout_s)

    def _shutdown(self) -> None:
        for st in self.calls:
            self.hangup(st)
        t_end = time.monotonic() + 1.0
        while time.monotonic() < t_end and not all(c.ended.is_set() for c in self.calls):
            self.ep.libHandleEvents(10)
        for st in self.calls:  # pjsua2's objects go while the library is there to release them
            if st.handle is not None:
                st.handle.port = None
                st.handle = None
        self.calls.clear()
        import gc

        gc.collect()
        try:
            self.ep.libDestroy()
        except Exception:  # ending either way
            pass


_CLASSES: dict[int, tuple[type, type, type]] = {}


def _classes_cached(pj: Any) -> tuple[type, type, type]:
    return _CLASSES.setdefault(0, _classes(pj))


def _x_headers(msg: str) -> dict[str, str]:
    """The ``X-Floorbench-*`` headers of an INVITE (floorbench's own agent end reads what scenario it plays)."""
    out: dict[str, str] = {}
    for line in msg.split("\r\n\r\n", 1)[0].splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower().startswith("x-floorbench-"):
            out[name.strip().lower()] = value.strip()
    return out
