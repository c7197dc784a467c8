"""`pipecat-service`: config → configured pipecat service → pipeline, without the network.

The service classes are pipecat's real ones. One test points OpenAI Realtime's
``base_url`` at a loopback stand-in (tests/support/fake_realtime.py) to check
that audio flows out and that the provider's barge-in clears queued playout.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import yaml
from pipecat.frames.frames import InterruptionFrame, TTSAudioRawFrame
from pipecat.tests.utils import SleepFrame, run_test

from floorbench.processors.registry import ModelContext, ModelError, create_model
from floorbench.processors.service import SERVICES, PipecatServiceModel

try:
    from tests.support.audio import input_frames, tone
    from tests.support.fake_realtime import FakeRealtimeServer
except ModuleNotFoundError:
    from support.audio import input_frames, tone
    from support.fake_realtime import FakeRealtimeServer

CONFIGS = Path(__file__).resolve().parents[1] / "floorbench" / "data" / "models"


def _model(**config) -> PipecatServiceModel:
    m = create_model(ModelContext(name="pipecat-service", config=config))
    assert isinstance(m, PipecatServiceModel)
    return m


def test_openai_realtime_from_config(monkeypatch):
    monkeypatch.setenv("FB_OPENAI_KEY", "sk-test-123")
    m = _model(
        service="openai-realtime",
        api_key_env="FB_OPENAI_KEY",
        settings={"model": "gpt-realtime-x", "audio": {"output": {"voice": "marin"}}},
        system_prompt="You are Aria.",
    )
    chain = m.processors()
    service = chain[0]
    assert type(service).__name__ == "OpenAIRealtimeLLMService"
    assert type(chain[-1]).__name__ == "_ServerTurnInterrupter"
    assert service.api_key == "sk-test-123"
    assert service._settings.model == "gpt-realtime-x"
    assert service._settings.system_instruction == "You are Aria."
    assert service._settings.session_properties.audio.output.voice == "marin"
    card = m.card()
    assert card["model_id"] == "gpt-realtime-x" and card["system_prompt"] == "You are Aria."
    assert card["service_class"].endswith(":OpenAIRealtimeLLMService")
    assert "sk-test-123" not in repr(card)


def test_missing_key_names_the_env_var(monkeypatch):
    monkeypatch.delenv("FB_NOT_SET_KEY", raising=False)
    with pytest.raises(ModelError, match="environment variable FB_NOT_SET_KEY is not set"):
        _model(service="openai-realtime", api_key_env="FB_NOT_SET_KEY")
    with pytest.raises(ModelError, match="config needs `api_key_env`"):
        _model(service="openai-realtime")


def test_missing_extra_names_the_extra(monkeypatch):
    monkeypatch.setenv("FB_KEY", "k")
    if importlib.util.find_spec("google.genai") is None:
        with pytest.raises(ModelError, match=r"needs the 'google' extra.*pip install 'floorbench\[google\]'"):
            _model(service="gemini-live", api_key_env="FB_KEY")
    with pytest.raises(ModelError, match=r"needs the 'acme' extra.*floorbench\[acme\]"):
        _model(service="acme_voice_sdk_not_installed.llm:AcmeService", extra="acme", api_key_env="FB_KEY")


def test_unknown_and_bad_config():
    with pytest.raises(ModelError, match="config needs `service`"):
        _model()
    with pytest.raises(ModelError, match="unknown service 'nope'"):
        _model(service="nope")
    with pytest.raises(ModelError, match="`settings` must be a mapping"):
        _model(service="openai-realtime", settings=["x"])


def test_typed_params_get_the_key(monkeypatch):
    monkeypatch.setenv("FB_UV_KEY", "uv-secret")
    m = _model(service="ultravox", api_key_env="FB_UV_KEY", params={"params": {"model": "ultravox-v0.7"}})
    service = m.build_service()
    assert type(service).__name__ == "UltravoxRealtimeLLMService"
    assert "uv-secret" not in repr(m.card())


def test_every_alias_points_at_a_pipecat_class():
    for alias, spec in SERVICES.items():
        mod, _, cls = spec.path.partition(":")
        assert importlib.util.find_spec(mod.rsplit(".", 1)[0]) is not None, alias
        assert cls.endswith("Service"), alias


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_build_or_name_their_extra(path, monkeypatch):
    config = yaml.safe_load(path.read_text())
    assert config.get("adapter"), f"{path.name}: every model config names its adapter"
    if config.get("api_key_env"):
        monkeypatch.setenv(config["api_key_env"], "test-key")
    try:
        model = create_model(ModelContext(name=config["adapter"], config=config))
    except ModelError as e:
        assert "extra" in str(e), e  # only a missing optional extra is acceptable here
        return
    assert model.processors()
    card = model.card()
    # the shipped configs name their key's environment variable and hold no secret, so the card
    # records them unchanged (literal redaction cases: tests/test_redact.py); the key itself never appears
    assert card["config"] == yaml.safe_load(path.read_text()) and "test-key" not in repr(card)


async def test_audio_flows_and_provider_barge_in_clears_playout(monkeypatch):
    monkeypatch.setenv("FB_OPENAI_KEY", "sk-loopback")
    with FakeRealtimeServer(answer_after_ms=300, reply_ms=2000) as server:
        m = _model(
            service="openai-realtime",
            api_key_env="FB_OPENAI_KEY",
            params={"base_url": server.url},
            system_prompt="You are Aria.",
        )
        (service, link, interrupter) = m.processors()
        # run_test takes one processor: chain the service, its link watch and the interrupter in a Pipeline.
        from pipecat.pipeline.pipeline import Pipeline

        frames = [SleepFrame(sleep=0.6), *input_frames(tone(600)), SleepFrame(sleep=1.0)]
        down, _ = await run_test(Pipeline([service, link, interrupter]), frames_to_send=frames)
    assert server.auth == ["Bearer sk-loopback"]
    updates = [e for e in server.client_events if e["type"] == "session.update"]
    assert updates and updates[0]["session"]["instructions"] == "You are Aria."
    assert server.appended_bytes > 0
    audio = [f for f in down if isinstance(f, TTSAudioRawFrame)]
    assert sum(len(f.audio) for f in audio) == 24000 * 2 * 2
    kinds = [type(f) for f in down]
    first_interrupt = kinds.index(InterruptionFrame)
    assert first_interrupt > kinds.index(TTSAudioRawFrame)
    assert interrupter.interruptions == 1
    assert np.frombuffer(audio[0].audio, dtype=np.int16).max() > 7000
