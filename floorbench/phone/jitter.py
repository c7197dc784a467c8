"""RTP jitter on the phone leg: a UDP relay between the leg and the agent that holds each packet a seeded random time.

PJMEDIA simulates loss (``rtp_loss_*``) but has no delay or jitter setting,
so late and reordered packets are made outside it: the leg's SDP offer names
this relay's ports instead of its own (`JitterRelay.offer`, pjsua2's
``onCallSdpCreated``), the agent sends its RTP and RTCP there, and the relay
passes them on to the leg's real ports, each packet held a delay drawn from
`RtpJitter`. The other way round needs no SDP of the agent's: PJSIP latches
onto the address its peer's RTP comes from (symmetric RTP), so once the
agent's first packet has reached the leg through the relay, the leg sends to
the relay too, and the relay passes that on to the agent. Both ways cross it
for the whole call, and each way has its own profile (or none: passed at once).

Two details make the latching hold. The agent may latch as well, onto the
leg's first packets, which go straight to it before the leg has heard from
the relay: so the offer names another SSRC than the leg's, the relay writes
it into every packet it passes towards the agent (and swaps it back and forth
in RTCP), and the few packets that went straight are ones whose SSRC the
agent was not told — PJSIP does not latch onto those at once. And the agent's
packets pass undelayed until the leg's first packet reaches the relay
(`undelayed_at_start`, typically one or two), so a long delay cannot keep the
leg sending straight to the agent.

A packet's delay is ``delay_ms`` ± ``jitter_ms`` (uniform), plus ``spike_ms``
for a share ``spike_pct`` of packets; with ``reorder: true`` (the default, as
``tc netem`` does) each packet keeps its own delay, so a packet can overtake
the one before it; with ``false`` none leaves before the one before it, as
through a queue. Each way draws from its own generator seeded by (seed, way),
so a profile holds the same packets the same time on every run. What the
relay did is measured, not assumed (`JitterRelay.record`): the delay each
packet got (its percentiles, from the relay's own clock), the jitter that
added in RFC 3550's form (the mean change of delay between packets in the
order they came; ≈ 2/3 ``jitter_ms`` when packets keep their own delays), and
how many left after a later one (reordered).
"""

from __future__ import annotations

import heapq
import random
import re
import selectors
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from pydantic import Field, model_validator

from floorbench.processors.adapter_config import Settings

Way = Literal["to_agent", "from_agent"]
WAYS: tuple[Way, ...] = ("to_agent", "from_agent")
MAX_DELAY_MS = 1000
MAX_SPIKE_MS = 2000
IDLE_S = 0.2
"""the relay's thread looks for `stop` at least this often"""
SSRC_FLIP = 0x5EED_F00D
"""the SSRC offered for the leg is its own XOR this: any other value would do, this one is easy to spot in a capture"""


class RtpJitter(Settings):
    """One way's jitter (``rtp_jitter_to_agent`` / ``rtp_jitter_from_agent`` in an ``adapter: sip`` config)."""

    delay_ms: int = Field(default=0, ge=0, le=MAX_DELAY_MS, strict=True)
    """mean delay added to each packet"""
    jitter_ms: int = Field(default=0, ge=0, le=MAX_DELAY_MS, strict=True)
    """each packet's delay is uniform in delay_ms ± jitter_ms (at most delay_ms: a packet never leaves before it came)"""
    spike_pct: float = Field(default=0.0, ge=0.0, le=50.0)
    """share of packets (%) held `spike_ms` longer: late spikes, which a jitter buffer may discard as late"""
    spike_ms: int = Field(default=0, ge=0, le=MAX_SPIKE_MS, strict=True)
    reorder: bool = True
    """a packet may overtake the one before it when their delays cross; false: order kept, as through a queue"""
    seed: int = Field(default=0, ge=0, strict=True)

    @model_validator(mode="after")
    def _never_early(self) -> RtpJitter:
        if self.jitter_ms > self.delay_ms:
            raise ValueError(f"has jitter_ms {self.jitter_ms} above delay_ms {self.delay_ms}: a packet cannot leave "
                             f"before it came; raise delay_ms to at least {self.jitter_ms}")
        if self.spike_pct > 0 and self.spike_ms == 0:
            raise ValueError(f"has spike_pct {self.spike_pct:g} but no spike_ms; set how much later a spike is")
        return self


@dataclass
class _Way:
    """One way through the relay: its draws and what it did."""

    name: Way
    profile: RtpJitter | None
    rng: random.Random
    last_due: float = 0.0
    packets: int = 0
    rtcp_packets: int = 0
    undelayed: int = 0
    spiked: int = 0
    reordered: int = 0
    unroutable: int = 0
    max_seq: int | None = None
    delays: list[tuple[int, float]] = field(default_factory=list)
    """(arrival number, ms held) per RTP packet held, as sent: the relay's clock, the draw plus the thread's lateness"""

    def draw(self, now: float) -> float:
        """When an RTP packet that came at `now` leaves."""
        p = self.profile
        if p is None:
            return now
        ms = p.delay_ms + (self.rng.uniform(-p.jitter_ms, p.jitter_ms) if p.jitter_ms else 0.0)
        if p.spike_pct and self.rng.random() * 100 < p.spike_pct:
            ms += p.spike_ms
            self.spiked += 1
        due = now + ms / 1000
        if not p.reorder:
            due = max(due, self.last_due)
        self.last_due = due
        return due

    def sent(self, n: int, seq: int, came: float, now: float) -> None:
        """RTP packet number `n` left: its delay, and whether a later one (by sequence number) left before it."""
        self.delays.append((n, (now - came) * 1000))
        if self.max_seq is None or (seq - self.max_seq) & 0xFFFF < 0x8000:
            self.max_seq = seq
        else:
            self.reordered += 1

    def record(self) -> dict[str, Any]:
        held = list(self.delays)
        d = sorted(ms for _, ms in held)
        came = [ms for _, ms in sorted(held)]
        changes = [abs(b - a) for a, b in pairwise(came)]

        def q(p: float) -> float | None:
            return round(d[min(len(d) - 1, int(p * len(d)))], 1) if d else None

        return {
            "asked": self.profile.model_dump() if self.profile is not None else None,
            "packets": self.packets, "rtcp_packets": self.rtcp_packets,
            "delay_ms": {"p50": q(0.5), "p95": q(0.95), "max": round(d[-1], 1) if d else None,
                         "mean": round(sum(d) / len(d), 1) if d else None},
            "added_jitter_ms": round(sum(changes) / len(changes), 1) if changes else None,
            "reordered": self.reordered, "spiked": self.spiked, "undelayed_at_start": self.undelayed,
            **({"unroutable": self.unroutable} if self.unroutable else {}),
        }


def _pair(host: str) -> tuple[socket.socket, socket.socket]:
    """Two UDP sockets on consecutive ports (RTP even, RTCP the next), as PJSIP predicts RTCP at RTP + 1."""
    for _ in range(200):
        rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rtp.bind((host, 0))
        port = rtp.getsockname()[1]
        if port % 2 == 0 and port < 65535:
            rtcp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                rtcp.bind((host, port + 1))
            except OSError:
                rtcp.close()
            else:
                return rtp, rtcp
        rtp.close()
    raise OSError(f"no free pair of UDP ports on {host} for the RTP jitter relay")


def _swap_ssrc(packet: bytes, old: int, new: int) -> bytes:
    """Every 32-bit word equal to `old` becomes `new` (RTCP: sender, report blocks, SDES and BYE SSRCs are words)."""
    a, b = struct.pack("!I", old), struct.pack("!I", new)
    if a not in packet:
        return packet
    out = bytearray(packet)
    for i in range(0, len(out) - 3, 4):
        if out[i:i + 4] == a:
            out[i:i + 4] = b
    return bytes(out)


class JitterRelay:
    """The relay for one call; see the module docstring. `start`, `offer` (the leg's SDP, stack thread), `stop`."""

    def __init__(self, bind: str = "127.0.0.1", to_agent: RtpJitter | None = None,
                 from_agent: RtpJitter | None = None) -> None:
        host = "0.0.0.0" if bind in ("0.0.0.0", "::") else bind
        self.agent_side = _pair(host)
        """(RTP, RTCP) sockets the agent sends to: their ports are in the leg's offer"""
        self.leg_side = _pair(host)
        """(RTP, RTCP) sockets the relay sends to the leg from, and the leg latches onto"""
        asked: dict[Way, RtpJitter | None] = {"to_agent": to_agent, "from_agent": from_agent}
        self.ways = {w: _Way(w, p, random.Random(f"{p.seed if p else 0}:{w}")) for w, p in asked.items()}
        self.leg_rtp: tuple[str, int] | None = None
        self.leg_rtcp: tuple[str, int] | None = None
        self.agent_rtp: tuple[str, int] | None = None
        self.agent_rtcp: tuple[str, int] | None = None
        self.ssrc_leg: int | None = None
        """the leg's own SSRC (its offer's, or its first packet's)"""
        self.ssrc_offered = random.getrandbits(32) | 1
        self.leg_heard = False
        """the leg's first packet reached the relay: it has latched onto it, the agent's packets are delayed now"""
        self._queue: list[tuple[float, int, socket.socket, bytes, tuple[str, int] | None, Way, int | None, float]] = []
        self._n = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._main, name="rtp-jitter-relay", daemon=True)

    @property
    def port(self) -> int:
        """The RTP port the offer names (the agent sends there)."""
        return self.agent_side[0].getsockname()[1]

    def start(self) -> JitterRelay:
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 1.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        for s in (*self.agent_side, *self.leg_side):
            s.close()

    def offer(self, sdp: str) -> str:
        """The leg's SDP with the relay's ports and the offered SSRC in place of its own (pjsua2's stack thread).
        The leg's real address, ports and SSRC are kept, to pass the agent's packets on to."""
        m = re.search(r"^m=audio (\d+) ", sdp, re.M)
        c = re.findall(r"^c=IN IP[46] (\S+)", sdp, re.M)
        if m is None or not c:
            return sdp  # no audio offered: nothing to relay
        host, rtp = c[-1], int(m.group(1))
        rtcp_m = re.search(r"^a=rtcp:(\d+)", sdp, re.M)
        self.leg_rtp, self.leg_rtcp = (host, rtp), (host, int(rtcp_m.group(1)) if rtcp_m else rtp + 1)
        ssrc_m = re.search(r"^a=ssrc:(\d+)", sdp, re.M)
        if ssrc_m:
            self.ssrc_leg = int(ssrc_m.group(1))
            self.ssrc_offered = self.ssrc_leg ^ SSRC_FLIP
        out = re.sub(r"^m=audio \d+ ", f"m=audio {self.port} ", sdp, flags=re.M)
        out = re.sub(r"^a=rtcp:\d+", f"a=rtcp:{self.agent_side[1].getsockname()[1]}", out, flags=re.M)
        if ssrc_m:
            out = re.sub(rf"^a=ssrc:{self.ssrc_leg}\b", f"a=ssrc:{self.ssrc_offered}", out, flags=re.M)
        else:
            out = out.rstrip("\r\n") + f"\r\na=ssrc:{self.ssrc_offered} cname:floorbench-relay\r\n"
        return out

    def record(self) -> dict[str, Any]:
        """What the relay did each way (meta.json ``rtp_jitter``)."""
        return {w: self.ways[w].record() for w in WAYS}

    def _main(self) -> None:
        sel = selectors.DefaultSelector()
        a_rtp, a_rtcp = self.agent_side
        l_rtp, l_rtcp = self.leg_side
        for s, role in ((a_rtp, "a_rtp"), (a_rtcp, "a_rtcp"), (l_rtp, "l_rtp"), (l_rtcp, "l_rtcp")):
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ, role)
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                wait = min(IDLE_S, max(0.0, self._queue[0][0] - now)) if self._queue else IDLE_S
                for key, _ in sel.select(wait):
                    sock: socket.socket = key.fileobj  # type: ignore[assignment]
                    while True:
                        try:
                            data, src = sock.recvfrom(4096)
                        except (BlockingIOError, InterruptedError):
                            break
                        except OSError:  # an ICMP unreachable from an earlier send: the peer has gone
                            break
                        self._came(key.data, data, src, time.monotonic())
                self._send_due()
        finally:
            sel.close()

    def _came(self, role: str, data: bytes, src: tuple[str, int], now: float) -> None:
        a_rtp, a_rtcp = self.agent_side
        l_rtp, l_rtcp = self.leg_side
        if role == "a_rtp":  # the agent's RTP → the leg
            self.agent_rtp = src
            if self.agent_rtcp is None:
                self.agent_rtcp = (src[0], src[1] + 1)
            self._hold("from_agent", now, l_rtp, data, self.leg_rtp, rtp=True)
        elif role == "a_rtcp":
            self.agent_rtcp = src
            if self.ssrc_leg is not None:
                data = _swap_ssrc(data, self.ssrc_offered, self.ssrc_leg)
            self._hold("from_agent", now, l_rtcp, data, self.leg_rtcp, rtp=False)
        elif role == "l_rtp":  # the leg's RTP (it has latched onto the relay) → the agent, with the offered SSRC
            self.leg_rtp, self.leg_heard = src, True
            if len(data) >= 12:
                if self.ssrc_leg is None:
                    self.ssrc_leg = struct.unpack_from("!I", data, 8)[0]
                data = data[:8] + struct.pack("!I", self.ssrc_offered) + data[12:]
            self._hold("to_agent", now, a_rtp, data, self.agent_rtp, rtp=True)
        else:
            self.leg_rtcp = src
            if self.ssrc_leg is not None:
                data = _swap_ssrc(data, self.ssrc_leg, self.ssrc_offered)
            self._hold("to_agent", now, a_rtcp, data, self.agent_rtcp, rtp=False)

    def _hold(self, way: Way, now: float, sock: socket.socket, data: bytes, to: tuple[str, int] | None,
              rtp: bool) -> None:
        """Queue a packet to leave when its way's profile says: an RTP packet at its draw, RTCP at the mean delay
        (no draw, so that RTCP's timing leaves the RTP draws as seeded); the agent's at once until the leg is heard."""
        w = self.ways[way]
        held = way == "to_agent" or self.leg_heard
        p = w.profile
        seq: int | None = None
        if rtp:
            w.packets += 1
            if not held:
                w.undelayed += 1
            due = w.draw(now) if held else now
            seq = struct.unpack_from("!H", data, 2)[0] if held and len(data) >= 12 else None
        else:
            w.rtcp_packets += 1
            due = now + p.delay_ms / 1000 if held and p is not None else now
        self._n += 1
        heapq.heappush(self._queue, (due, self._n, sock, data, to, way, seq, now))
        if due <= now:
            self._send_due()

    def _send_due(self) -> None:
        now = time.monotonic()
        while self._queue and self._queue[0][0] <= now:
            _, n, sock, data, to, way, seq, came = heapq.heappop(self._queue)
            w = self.ways[way]
            if to is None:
                w.unroutable += 1
                continue
            try:
                sock.sendto(data, to)
            except OSError:
                w.unroutable += 1
                continue
            if seq is not None:
                w.sent(n, seq, came, time.monotonic())
