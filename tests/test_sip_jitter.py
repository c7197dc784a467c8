"""The RTP jitter relay (floorbench/phone/jitter.py) on real UDP sockets on 127.0.0.1, no SIP stack.

Two plain sockets stand in for the phone leg and the agent: the relay is
handed the leg's SDP offer (its ports, its SSRC), the agent sends to the
ports the rewritten offer names, and the leg answers to wherever the agent's
packets came from, as PJSIP's symmetric RTP does. Every packet is timed on
this process's clock as well as the relay's.
"""

from __future__ import annotations

import random
import socket
import struct
import threading
import time

import pytest

from floorbench.phone.jitter import SSRC_FLIP, JitterRelay, RtpJitter, _Way

pytestmark = pytest.mark.timeout(30)
LEG_SSRC = 0x1234_5678
AGENT_SSRC = 0x0BAD_CAFE


def _udp() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(2.0)
    return s


def _rtp(seq: int, ssrc: int, sent: float) -> bytes:
    """An RTP header (PCMU) and, as payload, when it was sent (this process's clock)."""
    return struct.pack("!BBHII", 0x80, 0, seq, seq * 160, ssrc) + struct.pack("!d", sent)


def _offer(rtp: int, rtcp: int) -> str:
    return ("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=pjmedia\r\nt=0 0\r\n"
            f"m=audio {rtp} RTP/AVP 0 120\r\nc=IN IP4 127.0.0.1\r\na=rtcp:{rtcp} IN IP4 127.0.0.1\r\n"
            f"a=sendrecv\r\na=rtpmap:0 PCMU/8000\r\na=ssrc:{LEG_SSRC} cname:leg\r\n")


class Call:
    """A leg and an agent talking through a relay."""

    def __init__(self, relay: JitterRelay) -> None:
        self.relay = relay
        self.leg, self.leg_rtcp, self.agent, self.agent_rtcp = _udp(), _udp(), _udp(), _udp()
        self.sdp = relay.offer(_offer(self.leg.getsockname()[1], self.leg_rtcp.getsockname()[1]))
        port = int(self.sdp.split("m=audio ")[1].split()[0])
        rtcp = int(self.sdp.split("a=rtcp:")[1].split()[0])
        self.to_relay, self.to_relay_rtcp = ("127.0.0.1", port), ("127.0.0.1", rtcp)
        relay.start()
        # the agent's first packet reaches the leg at once; the leg latches onto where it came from
        self.agent.sendto(_rtp(0, AGENT_SSRC, time.monotonic()), self.to_relay)
        first, self.relay_leg_side = self.leg.recvfrom(2048)
        assert struct.unpack_from("!I", first, 8)[0] == AGENT_SSRC

    @staticmethod
    def talk(src: socket.socket, to: tuple[str, int], dst: socket.socket, n: int, ssrc: int,
             gap_s: float = 0.01) -> list[tuple[int, int, float]]:
        """`n` RTP packets `gap_s` apart from `src` to `to`, received at `dst` meanwhile: (seq, ssrc, ms from send
        to receipt) of each, in the order they came."""
        got: list[tuple[int, int, float]] = []

        def receive() -> None:
            for _ in range(n):
                data = dst.recv(2048)
                sent = struct.unpack_from("!d", data, 12)[0]
                got.append((struct.unpack_from("!H", data, 2)[0], struct.unpack_from("!I", data, 8)[0],
                            (time.monotonic() - sent) * 1000))

        t = threading.Thread(target=receive)
        t.start()
        for seq in range(1, n + 1):
            src.sendto(_rtp(seq, ssrc, time.monotonic()), to)
            time.sleep(gap_s)
        t.join(10)
        return got

    def close(self) -> None:
        self.relay.stop()
        for s in (self.leg, self.leg_rtcp, self.agent, self.agent_rtcp):
            s.close()


def test_the_offer_names_the_relays_ports_and_another_ssrc():
    relay = JitterRelay(to_agent=RtpJitter(delay_ms=10))
    try:
        sdp = relay.offer(_offer(40000, 40001))
        rtp, rtcp = relay.agent_side[0].getsockname()[1], relay.agent_side[1].getsockname()[1]
        assert f"m=audio {rtp} RTP/AVP 0 120" in sdp and f"a=rtcp:{rtcp} IN IP4" in sdp and rtcp == rtp + 1
        assert f"a=ssrc:{LEG_SSRC ^ SSRC_FLIP} cname:leg" in sdp and str(LEG_SSRC) not in sdp
        assert (relay.leg_rtp, relay.leg_rtcp) == (("127.0.0.1", 40000), ("127.0.0.1", 40001))
        assert relay.leg_side[1].getsockname()[1] == relay.leg_side[0].getsockname()[1] + 1  # PJSIP predicts RTP + 1
        assert relay.offer("v=0\r\ns=-\r\n") == "v=0\r\ns=-\r\n"  # no audio: untouched
    finally:
        relay.stop()


def test_each_way_holds_packets_within_its_profile_reorders_and_loses_none():
    """40 ± 20 ms to the agent, 60 ± 30 ms back: 120 packets 10 ms apart each way. Every packet arrives once; its
    delay (this process's clock) stays within the profile plus a little scheduling slack; delays cross, so the order
    changes; the mean change of delay between packets (RFC 3550's D) is about 2/3 of jitter_ms."""
    to_agent, from_agent = RtpJitter(delay_ms=40, jitter_ms=20, seed=3), RtpJitter(delay_ms=60, jitter_ms=30, seed=3)
    call = Call(JitterRelay(to_agent=to_agent, from_agent=from_agent))
    n = 120
    try:
        at_agent = call.talk(call.leg, call.relay_leg_side, call.agent, n, LEG_SSRC)
        at_leg = call.talk(call.agent, call.to_relay, call.leg, n, AGENT_SSRC)
        record = call.relay.record()
    finally:
        call.close()
    for got, (low, high), ssrc in ((at_agent, (20, 60), LEG_SSRC ^ SSRC_FLIP), (at_leg, (30, 90), AGENT_SSRC)):
        seqs = [s for s, _, _ in got]
        assert sorted(seqs) == list(range(1, n + 1))  # nothing lost, nothing twice
        assert seqs != sorted(seqs)  # reordered
        assert {x for _, x, _ in got} == {ssrc}  # the agent sees only the SSRC it was offered
        delays = [ms for _, _, ms in got]
        assert low - 1 <= min(delays) and max(delays) <= high + 15, (min(delays), max(delays))
    for way, asked in (("to_agent", to_agent), ("from_agent", from_agent)):
        r = record[way]
        assert r["asked"] == asked.model_dump() and r["packets"] == n + (way == "from_agent")
        assert r["undelayed_at_start"] == (1 if way == "from_agent" else 0)  # the agent's first, before the leg spoke
        assert abs(r["delay_ms"]["p50"] - asked.delay_ms) < asked.jitter_ms / 3
        assert asked.delay_ms - asked.jitter_ms - 1 <= r["delay_ms"]["p50"] <= r["delay_ms"]["p95"] <= r["delay_ms"]["max"]
        assert r["delay_ms"]["max"] <= asked.delay_ms + asked.jitter_ms + 15
        assert 0.45 * asked.jitter_ms <= r["added_jitter_ms"] <= 0.9 * asked.jitter_ms, r
        assert 5 <= r["reordered"] <= 0.6 * n, r  # about a third of the packets, 10 ms apart
    # this process's view of the order agrees with the relay's count
    assert record["to_agent"]["reordered"] == _late(at_agent)


def _late(got: list[tuple[int, int, float]]) -> int:
    top, late = 0, 0
    for seq, _, _ in got:
        late += seq < top
        top = max(top, seq)
    return late


def test_order_kept_and_spikes():
    """reorder: false keeps the order (a packet waits for the one before it); spikes hold about spike_pct of the
    packets spike_ms longer."""
    call = Call(JitterRelay(to_agent=RtpJitter(delay_ms=30, jitter_ms=30, reorder=False, seed=1),
                            from_agent=RtpJitter(delay_ms=20, spike_pct=25, spike_ms=100, seed=1)))
    n = 100
    try:
        at_agent = call.talk(call.leg, call.relay_leg_side, call.agent, n, LEG_SSRC)
        at_leg = call.talk(call.agent, call.to_relay, call.leg, n, AGENT_SSRC)
        record = call.relay.record()
    finally:
        call.close()
    assert [s for s, _, _ in at_agent] == list(range(1, n + 1)) and record["to_agent"]["reordered"] == 0
    spiked = [ms for _, _, ms in at_leg if ms > 80]
    assert record["from_agent"]["spiked"] == len(spiked) and 10 <= len(spiked) <= 45
    assert all(ms >= 119 for ms in spiked)
    assert sorted(s for s, _, _ in at_leg) == list(range(1, n + 1))


def test_rtcp_passes_both_ways_with_the_ssrcs_swapped():
    """The leg's RTCP reaches the agent naming the SSRC the agent was offered; the agent's report about that SSRC
    reaches the leg naming the leg's own, so PJSIP's loss and RTT reading still work."""
    call = Call(JitterRelay(to_agent=RtpJitter(delay_ms=10), from_agent=RtpJitter(delay_ms=10)))
    try:
        rr = struct.pack("!BBHI", 0x81, 201, 7, AGENT_SSRC) + struct.pack("!I", LEG_SSRC ^ SSRC_FLIP) + bytes(20)
        call.agent_rtcp.sendto(rr, call.to_relay_rtcp)
        got_rr, from_addr = call.leg_rtcp.recvfrom(2048)
        assert from_addr == (from_addr[0], call.relay_leg_side[1] + 1)  # from the relay's RTCP, RTP + 1
        sr = struct.pack("!BBHI", 0x80, 200, 6, LEG_SSRC) + bytes(20)
        call.leg_rtcp.sendto(sr, from_addr)
        got_sr = call.agent_rtcp.recv(2048)
        record = call.relay.record()
    finally:
        call.close()
    assert struct.unpack_from("!II", got_rr, 4) == (AGENT_SSRC, LEG_SSRC)
    assert struct.unpack_from("!I", got_sr, 4)[0] == LEG_SSRC ^ SSRC_FLIP and got_sr[8:] == sr[8:]
    assert record["to_agent"]["rtcp_packets"] == 1 and record["from_agent"]["rtcp_packets"] == 1


def test_a_seed_draws_the_same_delays_and_another_seed_others():
    def draws(seed: int) -> list[float]:
        w = _Way("to_agent", RtpJitter(delay_ms=50, jitter_ms=40, spike_pct=10, spike_ms=200, seed=seed),
                 random.Random(f"{seed}:to_agent"))
        return [round(w.draw(0.0) * 1000, 3) for _ in range(200)]

    assert draws(7) == draws(7) and draws(7) != draws(8)
    assert all(10 <= d <= 290 for d in draws(7))


@pytest.mark.parametrize(("config", "words"), [
    ({"delay_ms": 20, "jitter_ms": 30}, ["jitter_ms 30 above delay_ms 20", "raise delay_ms"]),
    ({"spike_pct": 5}, ["spike_pct 5 but no spike_ms"]),
    ({"delay_ms": 5000}, ["delay_ms", "1000"]),
    ({"delay_ms": 20.5}, ["delay_ms"]),
    ({"spread_ms": 5}, ["spread_ms"]),
])
def test_a_bad_profile_is_refused(config, words):
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as err:
        RtpJitter.model_validate(config)
    text = str(err.value)
    assert all(w in text for w in words), text
