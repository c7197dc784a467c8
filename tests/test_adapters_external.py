"""`external`: config validation, who counts as the model, join tokens (the live test is in test_adapters_live)."""

from __future__ import annotations

import json

import jwt
import pytest

from floorbench.processors.external import ExternalParticipant, join_instructions, join_token
from floorbench.processors.registry import ModelContext, ModelError, create_model


def ext(**config) -> ExternalParticipant:
    m = create_model(ModelContext(name="external", config=config))
    assert isinstance(m, ExternalParticipant) and m.joins == "external"
    return m


def test_identity_or_dispatch_required():
    with pytest.raises(ModelError, match="--identity NAME"):
        ext()
    with pytest.raises(ModelError, match="floorbench's own"):
        ext(identity="recorder")
    with pytest.raises(ModelError, match="join_timeout_s"):
        ext(identity="bot", join_timeout_s=0)
    m = ext(dispatch="my-agent", dispatch_metadata={"lang": "en"}, join_timeout_s=30)
    assert m.dispatch == "my-agent" and m.identity is None and m.join_timeout_s == 30
    assert json.loads(m.metadata_json("room-1", "s1")) == {
        "lang": "en",
        "room": "room-1",
        "scenario_id": "s1",
    }


def test_who_is_the_model():
    assert ext(identity="bot").matches("bot") and not ext(identity="bot").matches("agent-1")
    anyone = ext(dispatch="agent")
    assert anyone.matches("agent-AJ_x1") and not anyone.matches("playback") and not anyone.matches("recorder")


def test_no_processors_and_a_card():
    m = ext(identity="bot", model_id="acme-voice-2")
    with pytest.raises(ModelError, match="joins the room by itself"):
        m.processors()
    card = m.card()
    assert card["identity"] == "bot" and card["model_id"] == "acme-voice-2" and card["joins"] == "external"


def test_join_token_grants_the_room():
    token = join_token("key", "a-secret-of-at-least-32-characters!!", "room-9", "bot")
    claims = jwt.decode(
        token, "a-secret-of-at-least-32-characters!!", algorithms=["HS256"], options={"verify_aud": False}
    )
    assert claims["sub"] == "bot" and claims["video"]["room"] == "room-9" and claims["video"]["roomJoin"]
    text = join_instructions(
        "ws://127.0.0.1:7880", "key", "a-secret-of-at-least-32-characters!!", "room-9", "bot"
    )
    assert "ws://127.0.0.1:7880" in text and token.split(".")[0] in text and "a-secret" not in text


def test_an_identity_prefix_takes_a_dispatched_workers_agent_job_id():
    m = ext(dispatch="my-agent", identity="agent-*")
    assert m.matches("agent-AJ_x1") and not m.matches("bot") and not m.matches("recorder")


def test_the_dispatch_carries_the_configured_metadata_room_and_scenario(monkeypatch: pytest.MonkeyPatch):
    """ScenarioRun's dispatch sends the model's metadata (config `dispatch_metadata` + room + scenario)."""
    import asyncio

    from livekit import api

    from floorbench.pipelines.run.scenario_run import ScenarioRun

    sent: list[object] = []

    class FakeDispatch:
        async def create_dispatch(self, req: object) -> None:
            sent.append(req)

    class FakeAPI:
        def __init__(self, *a: object) -> None:
            self.agent_dispatch = FakeDispatch()

        async def aclose(self) -> None:
            pass

    monkeypatch.setattr(api, "LiveKitAPI", FakeAPI)
    run = ScenarioRun.__new__(ScenarioRun)  # only what _dispatch reads
    run.model = ext(dispatch="my-agent", dispatch_metadata={"lang": "en"})
    run.room, run.scenario = "fb-r-s1", type("S", (), {"scenario_id": "s1"})()
    run.conn = type("C", (), {"http_url": "http://x", "api_key": "k", "api_secret": "s"})()
    asyncio.run(run._dispatch("my-agent"))
    (req,) = sent
    assert req.agent_name == "my-agent" and req.room == "fb-r-s1"  # type: ignore[attr-defined]
    assert json.loads(req.metadata) == {"lang": "en", "room": "fb-r-s1", "scenario_id": "s1"}  # type: ignore[attr-defined]


def test_dispatch_or_identity_alone_means_the_external_model(tmp_path):
    from floorbench.pipelines.commands import system_under_test

    assert system_under_test(None, None, None, "my-agent") == ("external", {"dispatch": "my-agent"})
    assert system_under_test(None, None, "bot", None) == ("external", {"identity": "bot"})
    assert system_under_test("oracle", None, None, None)[0] == "oracle"
