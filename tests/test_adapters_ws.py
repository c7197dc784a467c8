"""The `websocket` and `moshi` adapters against the reference servers, one processor at a time.

Real pipecat processors, real WebSocket connections, real Opus; no LiveKit
here (the live tests put the same adapters in real rooms).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from pipecat.frames.frames import InterruptionFrame, OutputAudioRawFrame
from pipecat.tests.utils import SleepFrame, run_test

from floorbench.processors.moshi import MoshiModel
from floorbench.processors.ogg_opus import OggOpusReader, OggOpusWriter, ogg_crc
from floorbench.processors.registry import ModelContext, ModelError, create_model

try:  # tests/ may or may not be a package; support/ works either way
    from tests.support.audio import input_frames, output_audio, silence, tone, voiced_ms
    from tests.support.duplex_servers import Behaviour, ReferenceServer
except ModuleNotFoundError:
    from support.audio import input_frames, output_audio, silence, tone, voiced_ms
    from support.duplex_servers import Behaviour, ReferenceServer


def _model(name: str, **config):
    return create_model(ModelContext(name=name, config=config))


def _speech_then_quiet() -> list:
    # 600 ms of "speech", then 1.4 s of quiet: the reply server answers after 600 ms of quiet.
    pcm = np.concatenate([tone(600), silence(1400)])
    return [SleepFrame(sleep=0.4), *input_frames(pcm), SleepFrame(sleep=1.0)]


async def test_websocket_reply_server_answers_after_silence():
    with ReferenceServer("pcm", Behaviour("reply", clip_ms=500)) as server:
        model = _model("websocket", url=server.url)
        (proc,) = model.processors()
        down, _ = await run_test(proc, frames_to_send=_speech_then_quiet())
    audio, rate = output_audio(list(down))
    assert rate == 24000
    assert 400 <= voiced_ms(audio, rate) <= 520  # the whole 500 ms clip, nothing else
    assert server.hellos == [
        {"type": "start", "input_sample_rate": 16000, "output_sample_rate": 24000, "encoding": "pcm_s16le"}
    ]
    assert [e["event"] for e in server.behaviour.events] == ["connected", "reply_start", "reply_end"]
    # 2.0 s of input minus what was dropped before the connection was up.
    assert server.received_samples >= 16000 * 19 // 10


async def test_websocket_barge_in_clears_output():
    pcm = np.concatenate([tone(600), silence(800), tone(400), silence(200)])
    with ReferenceServer("pcm", Behaviour("reply", clip_ms=3000)) as server:
        (proc,) = _model("websocket", url=server.url).processors()
        down, _ = await run_test(
            proc, frames_to_send=[SleepFrame(sleep=0.4), *input_frames(pcm), SleepFrame(0.5)]
        )
    events = [e["event"] for e in server.behaviour.events]
    assert events == ["connected", "reply_start", "reply_stop"]
    assert any(isinstance(f, InterruptionFrame) for f in down)
    audio, rate = output_audio(list(down))
    assert 0 < voiced_ms(audio, rate) < 600  # stopped long before the 3 s clip ended


async def test_websocket_echo_with_delay_at_other_rates():
    with ReferenceServer("pcm", Behaviour("echo", delay_ms=300), in_rate=24000, out_rate=16000) as server:
        (proc,) = _model(
            "websocket", url=server.url, input_sample_rate=24000, output_sample_rate=16000, hello=None
        ).processors()
        pcm = np.concatenate([silence(200), tone(500), silence(600)])
        down, _ = await run_test(
            proc, frames_to_send=[SleepFrame(sleep=0.4), *input_frames(pcm), SleepFrame(0.5)]
        )
    audio, rate = output_audio(list(down))
    assert rate == 16000 and server.hellos == []
    voiced = voiced_ms(audio, rate)
    assert 440 <= voiced <= 540
    # Onset in the echo = 200 ms of lead-in + 300 ms delay.
    step = rate // 50
    first = next(i for i in range(0, len(audio), step) if np.abs(audio[i : i + step]).max() > 3000)
    assert abs(first * 1000 // rate - 500) <= 40


async def test_moshi_protocol_reply_and_text_tokens():
    with ReferenceServer("moshi", Behaviour("reply", clip_ms=800)) as server:
        # frames arrive faster than real time here: keep every quiet frame
        model = _model("moshi", url=server.url, max_backlog_ms=None)
        (proc,) = model.processors()
        down, _ = await run_test(proc, frames_to_send=_speech_then_quiet())
    audio, rate = output_audio(list(down))
    assert rate == 24000
    # Moshi answers every 80 ms step: the output is continuous, with the clip inside.
    assert len(audio) >= 24000 * 15 // 10
    assert 640 <= voiced_ms(audio, rate) <= 900
    assert proc.handshake_received
    assert "".join(proc.stats.text) == "Hello there."


async def test_unreachable_server_is_one_error_not_a_crash():
    (proc,) = _model("websocket", url="ws://127.0.0.1:9/", connect_timeout_s=2).processors()
    down, up = await run_test(proc, frames_to_send=[SleepFrame(sleep=0.5), *input_frames(silence(100))])
    errors = [f for f in up if type(f).__name__ == "ErrorFrame"]
    assert len(errors) == 1 and "cannot connect to ws://127.0.0.1:9/" in errors[0].error
    assert not any(isinstance(f, OutputAudioRawFrame) for f in down)


def test_config_errors_name_the_item():
    with pytest.raises(ModelError, match="`url` must start with ws://"):
        _model("websocket", url="http://x")
    with pytest.raises(ModelError, match="input_sample_rate"):
        _model("websocket", url="ws://x", input_sample_rate=11025)
    with pytest.raises(ModelError, match="environment variable FB_TEST_UNSET_KEY is not set"):
        _model("websocket", url="ws://x", api_key_env="FB_TEST_UNSET_KEY")
    with pytest.raises(ModelError, match="do not put `api_key` in the config"):
        _model("websocket", url="ws://x", api_key="sk-123")


def test_cards_carry_endpoint_without_secrets(monkeypatch):
    monkeypatch.setenv("FB_TEST_KEY", "sk-secret-value")
    m = _model(
        "websocket", url="wss://user:pw@host:9000/chat?token=abc", api_key_env="FB_TEST_KEY", model_id="m1"
    )
    card = m.card()
    assert card["endpoint"] == "wss://host:9000/chat" and card["model_id"] == "m1"
    assert "sk-secret-value" not in repr(card) and "abc" not in card["endpoint"]
    assert card["config"]["api_key_env"] == "FB_TEST_KEY"
    assert isinstance(_model("moshi"), MoshiModel)
    assert _model("moshi").card()["endpoint"] == "ws://127.0.0.1:8998/api/chat"


def test_ogg_opus_roundtrip_cut_anywhere():
    w, r = OggOpusWriter(24000, frame_ms=20), OggOpusReader(24000)
    x = tone(1000, 24000, freq=440)
    data = b"".join(w.append_pcm(x[i : i + 700]) for i in range(0, len(x), 700))
    assert data[:4] == b"OggS" and b"OpusHead" in data[:64]
    out = np.concatenate([r.append_bytes(data[i : i + 97]) for i in range(0, len(data), 97)])
    assert len(out) == 24000 and r.bad_pages == 0
    # Opus is lossy, but a clean tone keeps its level.
    assert (
        abs(
            np.sqrt(np.mean(out[2400:].astype(float) ** 2)) / np.sqrt(np.mean(x[2400:].astype(float) ** 2))
            - 1
        )
        < 0.2
    )
    # A corrupted page is skipped and the stream resynchronises.
    bad = bytearray(data)
    bad[200] ^= 0xFF
    r2 = OggOpusReader(24000)
    assert len(r2.append_bytes(bytes(bad))) < 24000 and r2.bad_pages == 1
    assert ogg_crc(b"OggS") != 0


REFERENCE = Path(__file__).resolve().parent / "fixtures" / "reference"


def _reference_signal() -> np.ndarray:
    """The signal of tests/fixtures/reference/make.py (reference.json states it)."""
    t = np.arange(24000 * 960 // 1000, dtype=np.float64) / 24000
    return (0.3 * np.sin(2 * np.pi * 440 * t) + 0.1 * np.sin(2 * np.pi * 1250 * t)).astype(np.float32)


def _pages(data: bytes) -> list[tuple[int, int, int, int, bytes]]:
    """(header type, granule, serial, sequence, packet) of each Ogg page (one packet per page)."""
    out, pos = [], 0
    while pos < len(data):
        assert data[pos : pos + 4] == b"OggS"
        htype, granule, serial, seq = struct.unpack_from("<BqII", data, pos + 5)
        nseg = data[pos + 26]
        size = sum(data[pos + 27 : pos + 27 + nseg])
        body = data[pos + 27 + nseg : pos + 27 + nseg + size]
        out.append((htype, granule, serial, seq, body))
        pos += 27 + nseg + size
    return out


def test_ogg_opus_reads_sphn_streams():
    """kyutai's sphn writer's stream (recorded by tests/fixtures/reference/make.py, as sphn is
    not installed here) decodes, cut anywhere, to what sphn's own reader made of it."""
    meta = json.loads((REFERENCE / "reference.json").read_text())
    data = (REFERENCE / "sphn_writer.ogg").read_bytes()
    theirs = np.load(REFERENCE / "sphn_writer.sphn_decoded.npy")
    reader = OggOpusReader(24000)
    ours = np.concatenate([reader.append_bytes(data[i : i + 101]) for i in range(0, len(data), 101)])
    assert len(ours) == len(theirs) == len(_reference_signal()) == 23040 and reader.bad_pages == 0
    assert int(np.abs(ours.astype(np.int32) - theirs).max()) <= meta["pcm_tolerance_int16"] == 2


def test_ogg_opus_writer_stream_is_the_one_sphn_read():
    """Our writer's stream of the reference signal has the page layout of the stream sphn
    decoded when the fixture was made (header pages byte for byte, granules, sequence,
    flags, one packet per page), and our reader agrees with sphn's decoding of it."""
    meta = json.loads((REFERENCE / "reference.json").read_text())
    recorded = (REFERENCE / "floorbench_writer.ogg").read_bytes()
    sphn_pcm = np.load(REFERENCE / "floorbench_writer.sphn_decoded.npy")
    x = np.clip(np.round(_reference_signal().astype(np.float64) * 32768), -32768, 32767).astype(np.int16)
    got, want = _pages(OggOpusWriter(24000, frame_ms=80).append_pcm(x)), _pages(recorded)
    assert [p[:4] for p in got] == [p[:4] for p in want] and len(want) == 2 + 12
    assert got[:2] == want[:2]  # OpusHead and OpusTags byte for byte
    assert len(sphn_pcm) == len(x) == 23040
    ours = OggOpusReader(24000).append_bytes(recorded)
    assert int(np.abs(ours.astype(np.int32) - sphn_pcm).max()) <= meta["pcm_tolerance_int16"]
    # sphn heard the signal, not noise: past the codec's start-up the decoded tone follows the input
    heard, sent = sphn_pcm.astype(np.float64), x[2400:20000].astype(np.float64)
    lag = max(range(400), key=lambda k: float(np.dot(heard[2400 + k : 20000 + k], sent)))
    assert np.corrcoef(heard[2400 + lag : 20000 + lag], sent)[0, 1] > 0.9
