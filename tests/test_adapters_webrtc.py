"""The `webrtc` adapter against local products, one processor at a time, no room.

Real aiortc peer connections on loopback, real Opus, real signalling over HTTP:
a pipecat bot with pipecat's own SmallWebRTC transport, an RFC 9725 WHIP
endpoint and a stand-in of the Realtime API's WebRTC call flow
(tests/support/webrtc_servers.py). The live test puts the bridge in a real room.
"""

from __future__ import annotations

import numpy as np
import pytest
from pipecat.frames.frames import ErrorFrame, OutputAudioRawFrame
from pipecat.tests.utils import SleepFrame, run_test

from floorbench.processors.registry import ModelContext, ModelError, create_model
from floorbench.processors.webrtc import WebRTCBridge

try:  # tests/ may or may not be a package; support/ works either way
    from tests.support.audio import input_frames, output_audio, silence, tone, voiced_ms
    from tests.support.duplex_servers import Behaviour
    from tests.support.webrtc_servers import PipecatBot, RealtimeStandIn, WhipProduct
except ModuleNotFoundError:
    from support.audio import input_frames, output_audio, silence, tone, voiced_ms
    from support.duplex_servers import Behaviour
    from support.webrtc_servers import PipecatBot, RealtimeStandIn, WhipProduct

pytestmark = pytest.mark.timeout(60)


def _bridge(**config) -> WebRTCBridge:
    (proc,) = create_model(ModelContext(name="webrtc", config=config)).processors()
    assert isinstance(proc, WebRTCBridge)
    return proc


def _talk(pcm: np.ndarray, settle_s: float = 2.0, tail_s: float = 1.5) -> list:
    """Wait for the connection, then real-time frames of `pcm`, then let the reply play out."""
    frames: list = [SleepFrame(sleep=settle_s)]
    for f in input_frames(pcm):
        frames += [f, SleepFrame(sleep=0.02)]
    return [*frames, SleepFrame(sleep=tail_s)]


def _errors(up: list) -> list[str]:
    return [f.error for f in up if isinstance(f, ErrorFrame)]


def _speech_then_quiet() -> np.ndarray:
    # 600 ms of "speech", then 1.2 s of quiet: the products answer after 600 ms of quiet
    return np.concatenate([tone(600), silence(1200)])


async def test_pipecat_bot_replies_through_the_bridge():
    with PipecatBot(Behaviour("reply", clip_ms=500)) as bot:
        proc = _bridge(signalling="pipecat", url=bot.offer_url, request_data={"who": "floorbench"})
        down, up = await run_test(proc, frames_to_send=_talk(_speech_then_quiet()))
    assert _errors(up) == []
    audio, rate = output_audio(list(down))
    assert rate == 24000
    # the whole 500 ms clip came back, once (Opus and the 20 ms gate blur its edges)
    assert 400 <= voiced_ms(audio, rate) <= 620, voiced_ms(audio, rate)
    assert [e["event"] for e in bot.behaviour.events] == ["reply_start", "reply_end"]
    assert bot.seen.offers[0]["request_data"] == {"who": "floorbench"} and bot.seen.connected == 1
    m = proc.measures()
    assert m["style"] == "pipecat" and m["room_to_model"]["n"] > 50 and m["model_to_room"]["n"] > 50
    assert m["codec"] == "opus/48000/2"  # as negotiated


async def test_pipecat_bot_asking_to_renegotiate_gets_a_new_offer_on_its_pc_id():
    with PipecatBot(Behaviour("reply", clip_ms=500), mode="renegotiate") as bot:
        proc = _bridge(signalling="pipecat", url=bot.offer_url)
        down, up = await run_test(proc, frames_to_send=_talk(_speech_then_quiet()))
    assert _errors(up) == []
    first, again = bot.seen.offers  # the first offer, then the renegotiation on the answer's pc_id
    assert first["pc_id"] is None and again["pc_id"] == proc.signalling.pc_id and again["pc_id"]  # type: ignore[attr-defined]
    audio, rate = output_audio(list(down))
    assert 400 <= voiced_ms(audio, rate) <= 620, voiced_ms(audio, rate)  # audio still flows both ways


async def test_a_pipecat_bot_that_leaves_is_lost_once():
    with PipecatBot(mode="drop", drop_after_s=0.5) as bot:
        proc = _bridge(signalling="pipecat", url=bot.offer_url)
        errors, _ = await _fails(proc, 2.5)
    assert len(errors) == 1, errors
    assert "left the call (peerLeft)" in errors[0] or "is closed" in errors[0], errors


async def test_whip_endpoint_with_bearer_token_and_delete(monkeypatch):
    monkeypatch.setenv("FB_TEST_WHIP_TOKEN", "whip-secret")
    with WhipProduct(Behaviour("reply", clip_ms=500), key="whip-secret") as whip:
        proc = _bridge(signalling="whip", url=whip.endpoint, api_key_env="FB_TEST_WHIP_TOKEN")
        down, up = await run_test(proc, frames_to_send=_talk(_speech_then_quiet()))
    assert _errors(up) == []
    audio, rate = output_audio(list(down))
    assert 400 <= voiced_ms(audio, rate) <= 620, voiced_ms(audio, rate)
    (offer,) = whip.seen.offers
    assert offer["content_type"] == "application/sdp" and offer["auth"] == "Bearer whip-secret"
    assert len(whip.seen.sessions) == 1 and whip.seen.deleted == whip.seen.sessions  # DELETE on end


async def test_realtime_stand_in_gets_session_on_the_events_channel(monkeypatch):
    monkeypatch.setenv("FB_TEST_OPENAI_KEY", "sk-test-key")
    with RealtimeStandIn(Behaviour("reply", clip_ms=500), key="sk-test-key") as rt:
        proc = _bridge(
            signalling="openai",
            url=rt.endpoint,
            api_key_env="FB_TEST_OPENAI_KEY",
            model="gpt-realtime",
            session={"instructions": "Be brief.", "audio": {"output": {"voice": "marin"}}},
        )
        down, up = await run_test(proc, frames_to_send=_talk(_speech_then_quiet()))
    assert _errors(up) == []
    audio, rate = output_audio(list(down))
    assert 400 <= voiced_ms(audio, rate) <= 620, voiced_ms(audio, rate)
    (offer,) = rt.seen.offers
    assert offer["content_type"] == "multipart/form-data"
    assert offer["session"] == {"type": "realtime", "model": "gpt-realtime"}
    (update,) = rt.seen.data_channel
    assert update == {
        "type": "session.update",
        "session": {"type": "realtime", "instructions": "Be brief.", "audio": {"output": {"voice": "marin"}}},
    }
    assert proc.signalling.events == ["session.updated"]  # type: ignore[attr-defined]


# --- failure kinds -------------------------------------------------------------------


async def _fails(proc: WebRTCBridge, wait_s: float) -> tuple[list[str], list]:
    down, up = await run_test(proc, frames_to_send=[SleepFrame(sleep=wait_s), *input_frames(silence(100))])
    return _errors(up), list(down)


async def test_wrong_url_is_one_error_naming_the_fix():
    with PipecatBot() as bot:
        proc = _bridge(signalling="pipecat", url=bot.url("/api/offr"))
        errors, down = await _fails(proc, 1.0)
    assert len(errors) == 1, errors
    assert "refused the WebRTC offer: HTTP 404" in errors[0] and "fix `url`" in errors[0]
    assert not any(isinstance(f, OutputAudioRawFrame) for f in down)
    proc = _bridge(signalling="pipecat", url="http://127.0.0.1:9/api/offer")
    errors, _ = await _fails(proc, 1.0)
    assert len(errors) == 1 and "cannot reach http://127.0.0.1:9/api/offer" in errors[0], errors


async def test_401_names_the_key_variable_and_never_the_key(monkeypatch):
    monkeypatch.setenv("FB_TEST_WHIP_TOKEN", "wrong-token-value")
    with WhipProduct(key="right-token") as whip:
        proc = _bridge(signalling="whip", url=whip.endpoint, api_key_env="FB_TEST_WHIP_TOKEN")
        errors, _ = await _fails(proc, 1.0)
    assert len(errors) == 1, errors
    assert "HTTP 401" in errors[0] and "check the key in FB_TEST_WHIP_TOKEN" in errors[0]
    assert "wrong-token-value" not in errors[0]


async def test_no_answer_to_the_offer():
    with WhipProduct(mode="silent") as whip:
        proc = _bridge(signalling="whip", url=whip.endpoint, connect_timeout_s=1.0)
        errors, _ = await _fails(proc, 2.0)
    assert len(errors) == 1 and "no answer to the WebRTC offer" in errors[0] and "within 1 s" in errors[0], errors


async def test_ice_failure_when_the_answer_has_no_reachable_candidate():
    with WhipProduct(mode="no_candidates") as whip:
        proc = _bridge(signalling="whip", url=whip.endpoint, ice_timeout_s=2.0)
        errors, _ = await _fails(proc, 2.5)
    assert len(errors) == 1 and "ICE/DTLS" in errors[0] and "did not connect" in errors[0], errors


async def test_a_peer_that_drops_mid_session_is_lost_once():
    lost: list[str] = []
    with WhipProduct(Behaviour("reply"), mode="drop", drop_after_s=1.0) as whip:
        proc = _bridge(signalling="whip", url=whip.endpoint)

        async def _note(_proc, why: str) -> None:
            lost.append(why)

        proc.add_event_handler("on_model_disconnected", _note)
        errors, _ = await _fails(proc, 2.5)
    assert len(errors) == 1 and len(lost) == 1, (errors, lost)
    assert "check the product" in errors[0] and ("closed" in errors[0] or "ended" in errors[0]), errors


async def test_service_error_event_is_an_error(monkeypatch):
    monkeypatch.setenv("FB_TEST_OPENAI_KEY", "sk-test-key")
    with RealtimeStandIn(key="sk-test-key") as rt:
        proc = _bridge(
            signalling="openai", url=rt.endpoint, api_key_env="FB_TEST_OPENAI_KEY", session={"instructions": "fail"}
        )
        errors, _ = await _fails(proc, 2.0)
    assert len(errors) == 1 and "Invalid session.instructions" in errors[0], errors


def test_config_errors_name_the_item(monkeypatch):
    with pytest.raises(ModelError, match="`signalling` must be one of"):
        create_model(ModelContext(name="webrtc", config={"signalling": "sip", "url": "http://x"}))
    with pytest.raises(ModelError, match="`url` is needed for `signalling: whip`"):
        create_model(ModelContext(name="webrtc", config={"signalling": "whip"}))
    with pytest.raises(ModelError, match="must start with http:// or https://"):
        create_model(ModelContext(name="webrtc", config={"signalling": "whip", "url": "ws://x"}))
    with pytest.raises(ModelError, match="do not put `token` in the config"):
        create_model(ModelContext(name="webrtc", config={"signalling": "whip", "url": "http://x", "token": "t"}))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelError, match="config needs `api_key_env`"):
        create_model(ModelContext(name="webrtc", config={"signalling": "openai"}))


def test_card_names_endpoint_and_style_without_secrets(monkeypatch):
    monkeypatch.setenv("FB_TEST_OPENAI_KEY", "sk-secret-value")
    m = create_model(
        ModelContext(
            name="webrtc",
            config={"signalling": "openai", "api_key_env": "FB_TEST_OPENAI_KEY", "headers": {"X-Org": "org-1"}},
        )
    )
    card = m.card()
    assert card["endpoint"] == "https://api.openai.com/v1/realtime/calls"
    assert card["protocol"] == "webrtc/openai"
    assert card["config"]["headers"] == {"X-Org": "<redacted>"}
    assert "sk-secret-value" not in repr(card)


# --- the bridge's delay, reported to the runner ----------------------------------------


def test_measures_travel_as_a_typed_child_line_and_the_runner_keeps_the_latest(tmp_path, capsys):
    import asyncio

    from floorbench.pipelines.room.model_messages import ModelMeasured, ModelSpec, read_event
    from floorbench.pipelines.room.model_participant import _Reports
    from floorbench.pipelines.run.model_process import ModelProcess

    proc = _bridge(signalling="whip", url="http://127.0.0.1:9/whip")
    reports = _Reports([proc], ())

    async def report_twice() -> None:
        await proc._call_event_handler("on_model_measured", {"room_to_model": {"n": 1}})
        await proc._call_event_handler("on_model_measured", proc.measures())

    asyncio.run(report_twice())
    lines = capsys.readouterr().out.splitlines()
    assert reports.links == [proc] and len(lines) == 2
    event = read_event(lines[1])
    assert isinstance(event, ModelMeasured) and event.measured["style"] == "whip"
    assert event.measured["room_to_model"] == {"n": 0} and event.measured["model_to_room"] == {"n": 0}

    spec = ModelSpec(url="ws://x", token="t", room="r", identity="model", model="webrtc", in_sample_rate=16000,
                     out_sample_rate=24000, out_queue_ms=100, parent_pid=1, max_lifetime_s=None)
    child = ModelProcess(spec, tmp_path / "model.log")

    async def read() -> None:
        stdout = asyncio.StreamReader()
        stdout.feed_data(("\n".join(lines) + "\n").encode())
        stdout.feed_eof()
        await child._read_events(stdout)

    asyncio.run(read())
    assert child.measured == event.measured and child.failure is None


def test_answer_codec_is_the_first_of_the_audio_section():
    from floorbench.processors.webrtc import answer_codec

    sdp = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111 0\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:111 opus/48000/2\r\n"
    assert answer_codec(sdp) == "opus/48000/2"
    assert answer_codec(sdp.replace("SAVPF 111 0", "SAVPF 0 111")) == "PCMU/8000"
    assert answer_codec("v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n") is None


def test_delay_log_summarises_in_integer_friendly_ms():
    from floorbench.processors.webrtc_peer import DelayLog

    log = DelayLog()
    assert log.summary() == {"n": 0}
    for ms in range(1, 101):
        log.add(ms / 1000)
    assert log.summary() == {"n": 100, "p50_ms": 50.5, "p95_ms": 95.0, "max_ms": 100.0}


def test_receive_prefetch_replaces_aiortc_jitter_buffer():
    from aiortc import RTCPeerConnection

    from floorbench.processors.webrtc import _set_prefetch

    async def check() -> tuple[int, int]:
        pc = RTCPeerConnection()
        default = pc.addTransceiver("audio").receiver
        fast = pc.addTransceiver("audio").receiver
        _set_prefetch(fast, 0)
        attr = "_RTCRtpReceiver__jitter_buffer"
        got = getattr(default, attr)._prefetch, getattr(fast, attr)._prefetch
        await pc.close()
        return got

    import asyncio

    assert asyncio.run(check()) == (4, 0)
