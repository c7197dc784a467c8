"""The phone leg (`sip` model) against real SIP endpoints on loopback, one processor at a time, no room.

Real PJSIP on both ends: the leg in this process, `floorbench phone-agent` in a
child process (auto-answer, echoing, or misbehaving on purpose: busy, declined,
never answering, hanging up), and baresip, an independent SIP implementation,
for the codecs (tests/support/phone_agents.py). Each call is real SIP over UDP
and real G.711/G.722 RTP.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from pipecat.frames.frames import ErrorFrame, InputTransportMessageFrame, OutputTransportMessageUrgentFrame
from pipecat.tests.utils import SleepFrame, run_test

from floorbench.phone.leg import PhoneLeg
from floorbench.processors.registry import ModelContext, create_model

try:
    from tests.support.audio import input_frames, output_audio, silence, tone, voiced_ms
    from tests.support.phone_agents import Baresip, PhoneAgent
except ModuleNotFoundError:
    from support.audio import input_frames, output_audio, silence, tone, voiced_ms
    from support.phone_agents import Baresip, PhoneAgent

pytestmark = pytest.mark.timeout(90)


def _leg(**config) -> PhoneLeg:
    (proc,) = create_model(ModelContext(name="sip", config=config)).processors()
    assert isinstance(proc, PhoneLeg)
    return proc


def _talk(pcm: np.ndarray, settle_s: float = 1.0, tail_s: float = 1.0) -> list:
    frames: list = [SleepFrame(sleep=settle_s)]
    for f in input_frames(pcm):
        frames += [f, SleepFrame(sleep=0.02)]
    return [*frames, SleepFrame(sleep=tail_s)]


def _errors(up: Sequence[Any]) -> list[str]:
    return [str(f.error) for f in up if isinstance(f, ErrorFrame)]


def _peak_hz(pcm: np.ndarray, rate: int) -> float:
    x = pcm.astype(np.float64)
    return float(np.argmax(np.abs(np.fft.rfft(x))) * rate / len(x))


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_echo_agent_over_g711_carries_audio_both_ways():
    with PhoneAgent("--model", "echo") as agent:
        leg = _leg(uri=agent.uri, codecs=["PCMU"])
        down, up = await run_test(leg, frames_to_send=_talk(np.concatenate([tone(800, freq=500), silence(400)])))
    assert _errors(up) == []
    audio, rate = output_audio(list(down))
    assert rate == 24000
    assert voiced_ms(audio, rate) >= 600  # the echo of 800 ms, through G.711 both ways
    m = leg.measures()
    assert (m["codec"], m["codec_sample_rate"]) == ("PCMU", 8000)
    assert isinstance(m["setup_ms"], int) and 0 <= m["setup_ms"] < 2000
    assert m["rtp"]["rx_packets"] > 50 and m["rtp"]["lost"] == 0
    assert m["room_to_model"]["n"] > 0 and m["model_to_room"]["n"] > 0
    assert "receiver" in m["agent_clock"]
    assert "rtp_jitter" not in m  # no jitter asked: the call's RTP goes straight, no relay


async def test_dtmf_asked_in_the_room_reaches_the_agent_as_rfc4733_events_and_the_timeline():
    ask = InputTransportMessageFrame(message={"floorbench": "dtmf", "digits": "1234#"})
    with PhoneAgent("--model", "silent") as agent:
        leg = _leg(uri=agent.uri)
        down, up = await run_test(leg, frames_to_send=[SleepFrame(sleep=1.0), ask, SleepFrame(sleep=1.5)])
    assert _errors(up) == []
    heard = "".join(e["digit"] for e in agent.log() if e["event"] == "dtmf")
    assert heard == "1234#"  # each digit once, in order, as the agent's SIP stack decoded the events
    markers = [json.loads(f.message) for f in down if isinstance(f, OutputTransportMessageUrgentFrame)]
    assert markers[0]["event"] == "answered" and markers[0]["codec"] == "PCMU"
    assert [(m["source"], m["direction"], m["digits"]) for m in markers[1:]] == [("phone", "to_agent", "1234#")]
    assert leg.measures()["dtmf_sent"] == ["1234#"]


async def test_the_oracle_behind_the_phone_reads_back_the_keys_it_heard_and_silent_does_not():
    """A test's dtmf step as the phone leg carries it: the step's number rides on the marker, each key is
    held 80 ms; the oracle answers once the keys stop (200 ms after #), the silent agent says nothing. The
    window heard is long enough for the read-back's voice to load and synthesize on a loaded machine."""
    ask = InputTransportMessageFrame(message={"floorbench": "dtmf", "digits": "12#", "duration_ms": 80, "step": 2})
    got = {}
    for model in ("oracle", "silent"):
        with PhoneAgent("--model", model) as agent:
            leg = _leg(uri=agent.uri)
            down, up = await run_test(leg, frames_to_send=[SleepFrame(sleep=1.0), ask, SleepFrame(sleep=4.5)])
        assert _errors(up) == []
        assert "".join(e["digit"] for e in agent.log() if e["event"] == "dtmf") == "12#"
        markers = [json.loads(f.message) for f in down if isinstance(f, OutputTransportMessageUrgentFrame)]
        assert [(m["digits"], m["step"]) for m in markers if m.get("event") == "dtmf"] == [("12#", 2)]
        audio, rate = output_audio(list(down))
        got[model] = ([e for e in agent.log() if e["event"] == "reply"], voiced_ms(audio, rate))
    (reply,), oracle_ms = got["oracle"]
    assert (reply["keys"], reply["text"]) == ("12#", "You pressed one, two, pound.")
    assert oracle_ms >= 500  # the read-back (≈1.8 s of speech, its start within the 4.5 s heard), back through G.711
    assert got["silent"] == ([], 0)


async def test_a_bad_dtmf_request_is_one_error():
    ask = InputTransportMessageFrame(message={"floorbench": "dtmf", "digits": "12x"})
    with PhoneAgent("--model", "silent") as agent:
        leg = _leg(uri=agent.uri)
        _, up = await run_test(leg, frames_to_send=[SleepFrame(sleep=0.8), ask, SleepFrame(sleep=0.2)])
    errors = _errors(up)
    assert len(errors) == 1 and "write the keys as a string of 0-9, *, #, A-D" in errors[0]


@pytest.mark.parametrize(("answer", "kind", "status", "wait_s"), [
    ("busy", "phone busy", 486, 1.0), ("decline", "phone declined", 603, 1.0), ("ring", "phone no answer", None, 2.5),
])
async def test_an_unanswered_call_is_one_error_naming_the_kind(answer, kind, status, wait_s):
    with PhoneAgent("--model", "silent", "--answer", answer) as agent:
        leg = _leg(uri=agent.uri, setup_timeout_s=2.0)
        t0 = time.monotonic()
        _, up = await run_test(leg, frames_to_send=[SleepFrame(sleep=wait_s)])
    errors = _errors(up)
    assert len(errors) == 1 and kind in errors[0], errors
    assert time.monotonic() - t0 < 8
    if status is not None:
        assert leg.measures()["sip_status"] == status
    assert leg.measures()["failure"] == kind.removeprefix("phone ").replace(" ", "_")


async def test_a_call_dropped_mid_scenario_fails():
    with PhoneAgent("--model", "silent", "--answer", "drop:1") as agent:
        leg = _leg(uri=agent.uri)
        _, up = await run_test(leg, frames_to_send=[SleepFrame(sleep=3.0)])
    errors = _errors(up)
    assert len(errors) == 1 and "dropped the call mid-scenario" in errors[0], errors
    assert leg.measures()["failure"] == "dropped"


async def test_a_codec_the_agent_refuses_names_the_setting():
    with PhoneAgent("--model", "silent", "--codecs", "G722") as agent:
        leg = _leg(uri=agent.uri, codecs=["PCMU"], setup_timeout_s=3.0)
        _, up = await run_test(leg, frames_to_send=[SleepFrame(sleep=1.0)])
    errors = _errors(up)
    assert len(errors) == 1 and "codec refused" in errors[0] and "`codecs:`" in errors[0], errors


async def test_an_unreachable_peer_is_one_line_within_the_setup_timeout():
    leg = _leg(uri=f"sip:agent@127.0.0.1:{_free_udp_port()}", setup_timeout_s=2.0)
    t0 = time.monotonic()
    _, up = await run_test(leg, frames_to_send=[SleepFrame(sleep=2.5)])
    errors = _errors(up)
    assert len(errors) == 1 and "did not answer" in errors[0] and "start the agent's SIP endpoint" in errors[0]
    assert time.monotonic() - t0 < 6


@pytest.mark.parametrize(("codec", "rate"), [("PCMU", 8000), ("PCMA", 8000), ("G722", 16000)])
async def test_baresip_answers_with_the_codec_offered_and_audio_flows_both_ways(codec, rate):
    with Baresip(port=_free_udp_port(), freq=440) as peer:
        leg = _leg(uri=peer.uri, codecs=[codec])
        down, up = await run_test(leg, frames_to_send=_talk(tone(1500, freq=1000), settle_s=1.0, tail_s=0.5))
    assert _errors(up) == []
    m = leg.measures()
    assert (m["codec"], m["codec_sample_rate"]) == (codec, rate)
    audio, out_rate = output_audio(list(down))
    heard = audio[-out_rate:]  # baresip's sine, decoded by PJSIP
    assert abs(_peak_hz(heard, out_rate) - 440) < 15
    dumped = peer.decoded()
    assert dumped is not None
    x, sr = sf.read(str(dumped), dtype="int16")
    x = x if x.ndim == 1 else x.mean(axis=1)
    loud = x[np.abs(x) > 1000]
    assert len(loud) > sr // 2  # our 1 kHz tone, decoded by baresip
    assert abs(_peak_hz(x[np.abs(x).argmax() - sr // 4: np.abs(x).argmax() + sr // 4], sr) - 1000) < 15


LOSSY_CALL = """
import asyncio, json, sys
import numpy as np
from pipecat.tests.utils import SleepFrame, run_test
from floorbench.processors.registry import ModelContext, create_model
from support.audio import input_frames, tone

async def main():
    (leg,) = create_model(ModelContext(name="sip", config=json.loads(sys.argv[1]))).processors()
    frames = [SleepFrame(sleep=0.5)]
    for f in input_frames(tone(4000, freq=500)):
        frames += [f, SleepFrame(sleep=0.02)]
    await run_test(leg, frames_to_send=[*frames, SleepFrame(sleep=1.0)])
    print(json.dumps(leg.measures()))

asyncio.run(main())
"""


def test_rtp_loss_asked_of_the_leg_is_realised_each_way():
    """RTP loss on the phone leg (PJMEDIA's simulation, one setting per process: a child process). 20 % each
    way over a 4 s call (~200 packets each way): the leg's receiver counts what it lost of the echo's packets,
    the echo's RTCP receiver reports count what it lost of ours. Back: within 10-30 % (about ±3.5 σ); towards the
    agent: 6-30 %, since the peer's last report (PJSIP sends one about every 5 s) lags the packets sent (measured
    14-17 % where 20 % was asked, on a 4 s call)."""
    import subprocess
    import sys
    from pathlib import Path

    with PhoneAgent("--model", "echo") as agent:
        cfg = {"uri": agent.uri, "codecs": ["PCMU"], "rtp_loss_to_agent_pct": 20, "rtp_loss_from_agent_pct": 20}
        p = subprocess.run([sys.executable, "-c", LOSSY_CALL, json.dumps(cfg)], capture_output=True, text=True,
                           timeout=60, cwd=Path(__file__).parent)
    assert p.returncode == 0, p.stderr[-2000:]
    m = json.loads(p.stdout.strip().splitlines()[-1])
    loss = m["rtp_loss"]
    assert (loss["asked_to_agent_pct"], loss["asked_from_agent_pct"]) == (20, 20)
    assert m["rtp"]["rx_packets"] > 150 and m["rtp"]["lost"] > 0, m["rtp"]
    assert 10 <= loss["from_agent_pct"] <= 30, m["rtp"]
    assert loss["to_agent_pct"] is not None and 6 <= loss["to_agent_pct"] <= 30, m["rtp"]
    assert m["failure"] is None
    print(loss, m["rtp"])  # shown with -s


def test_the_process_stack_refuses_a_second_loss_setting(monkeypatch):
    from floorbench.phone.stack import SipStack
    from floorbench.phone.uri import PhoneError

    class Started:
        drop_pct = (0, 0)

    monkeypatch.setattr(SipStack, "_instance", Started())
    assert SipStack.shared() is SipStack._instance
    with pytest.raises(PhoneError, match="one loss setting per process"):
        SipStack.shared(tx_drop_pct=5)


async def test_rtp_jitter_asked_of_the_leg_reaches_both_receivers_through_the_relay():
    """40 ± 20 ms of jitter each way (`rtp_jitter_*`, a relay in this process; no child needed: the relay is per
    call). Both ways cross the relay for the whole call (the agent's packets reach it and the leg latches onto it,
    so its packets go there too); each packet is held within the profile; about one in eight is overtaken; the
    leg's own receiver measures RFC 3550 jitter far above the ~0.4 ms of a straight call; the echo still comes
    back."""
    profile = {"delay_ms": 40, "jitter_ms": 20, "seed": 2}
    with PhoneAgent("--model", "echo") as agent:
        leg = _leg(uri=agent.uri, codecs=["PCMU"], rtp_jitter_to_agent=profile, rtp_jitter_from_agent=profile)
        down, up = await run_test(leg, frames_to_send=_talk(np.concatenate([tone(800, freq=500), silence(400)])))
    assert _errors(up) == []
    audio, rate = output_audio(list(down))
    assert voiced_ms(audio, rate) >= 500  # the echo, through the relay and G.711 both ways
    m = leg.measures()
    rtp, jitter = m["rtp"], m["rtp_jitter"]
    for way, packets in (("to_agent", rtp["tx_packets"]), ("from_agent", rtp["rx_packets"])):
        r = jitter[way]
        assert r["asked"]["delay_ms"] == 40 and r["asked"]["seed"] == 2
        assert r["packets"] >= 0.95 * packets, (way, r, rtp)
        assert 35 <= r["delay_ms"]["p50"] <= 47 and r["delay_ms"]["p95"] <= 75, r  # 20-60 ms, plus the thread's lateness
        assert 8 <= r["added_jitter_ms"] <= 18 and r["reordered"] >= 5, r
    # the agent's RTCP comes through too; the leg's first report leaves before it has latched, its next ~5 s later
    assert jitter["from_agent"]["rtcp_packets"] >= 1 and jitter["from_agent"]["undelayed_at_start"] <= 5
    assert jitter["from_agent"]["receiver"]["jitter_ms"] >= 4, jitter  # the leg's PJSIP receiver
    assert m["failure"] is None


async def test_rtp_jitter_holds_with_baresip_at_the_far_end():
    """baresip sends to the address in the offer and latches differently from PJSIP: both ways still cross the
    relay for the whole call, and its 440 Hz comes through the jittered way."""
    profile = {"delay_ms": 40, "jitter_ms": 20}
    with Baresip(port=_free_udp_port(), freq=440) as peer:
        leg = _leg(uri=peer.uri, codecs=["PCMU"], rtp_jitter_to_agent=profile, rtp_jitter_from_agent=profile)
        down, up = await run_test(leg, frames_to_send=_talk(tone(1500, freq=1000), settle_s=1.0, tail_s=0.5))
    assert _errors(up) == []
    audio, rate = output_audio(list(down))
    assert abs(_peak_hz(audio[-rate:], rate) - 440) < 15
    m = leg.measures()
    jitter = m["rtp_jitter"]
    assert jitter["to_agent"]["packets"] >= 0.95 * m["rtp"]["tx_packets"]
    assert jitter["from_agent"]["packets"] >= 0.95 * m["rtp"]["rx_packets"], (jitter, m["rtp"])
    assert 35 <= jitter["from_agent"]["delay_ms"]["p50"] <= 47 and jitter["from_agent"]["receiver"]["jitter_ms"] >= 4
