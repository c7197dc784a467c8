"""One redaction for configs, header maps, URLs and free text (floorbench.redact).

Every expected value is written out literally: a test that took its expectation
from `redact()` itself could not fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from floorbench.processors.registry import ModelContext, create_model
from floorbench.redact import REDACTED, is_secret_name, redact, redact_text, redact_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("ws://127.0.0.1:8765/", "ws://127.0.0.1:8765/"),
        ("https://api.example.com/v1", "https://api.example.com/v1"),
        ("wss://user:pw@h.example:443/chat", "wss://<redacted>@h.example:443/chat"),
        ("wss://only-user@h.example/chat", "wss://<redacted>@h.example/chat"),
        ("http://h/v1?token=abc&model=gpt-4o", "http://h/v1?token=<redacted>&model=<redacted>"),
        ("http://h/v1?key=abc#access_token=xyz", "http://h/v1?key=<redacted>#<redacted>"),
        ("http://h/?flag", "http://h/?<redacted>"),
        ("http://[::1]:9000/x?sig=1", "http://[::1]:9000/x?sig=<redacted>"),
        ("http://h:notaport/x?k=1", "http://<redacted>"),
    ],
)
def test_redact_url_keeps_host_and_path_and_replaces_user_info_query_values_and_fragment(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_secret_names_include_the_auth_family_but_never_env_var_names() -> None:
    for name in ("api_key", "X-Api-Key", "Authorization", "auth", "proxy_auth", "Bearer", "Cookie",
                 "set-cookie", "client_secret", "password", "refresh_token", "credentials"):
        assert is_secret_name(name), name
    for name in ("api_key_env", "AUTH_ENV", "voice", "model", "url", "identity"):
        assert not is_secret_name(name), name


def test_redact_config_by_name_header_map_and_url() -> None:
    cfg = {
        "adapter": "websocket",
        "url": "wss://bob:pw-123@h.example/s?token=tok-456&lang=en",
        "api_key_env": "MY_SERVER_KEY",
        "headers": {"Authorization": "Bearer tok-789", "X-Vendor-Thing": "v-000", "X-Count": 3},
        "auth": {"user": "bob", "pass": "pw-abc"},
        "Cookie": "session=s-1",
        "params": {"voice": "alloy", "max_tokens": 512, "base_url": "https://k:s@api.example/v1"},
        "list": ["plain", "http://h/?key=k-1"],
    }
    assert redact(cfg) == {
        "adapter": "websocket",
        "url": "wss://<redacted>@h.example/s?token=<redacted>&lang=<redacted>",
        "api_key_env": "MY_SERVER_KEY",
        "headers": {"Authorization": REDACTED, "X-Vendor-Thing": REDACTED, "X-Count": REDACTED},
        "auth": {"user": REDACTED, "pass": REDACTED},
        "Cookie": REDACTED,
        "params": {"voice": "alloy", "max_tokens": 512, "base_url": "https://<redacted>@api.example/v1"},
        "list": ["plain", "http://h/?key=<redacted>"],
    }
    assert cfg["headers"]["Authorization"] == "Bearer tok-789"  # a copy; the config is untouched


def test_redact_text_removes_urls_bearer_tokens_and_known_values() -> None:
    line = "cannot connect to wss://u:p@h/x?key=k-1 (Bearer abcdef123456); basic rules hold; sk-live-9"
    assert redact_text(line, values=["sk-live-9"]) == (
        "cannot connect to wss://<redacted>@h/x?key=<redacted> (Bearer <redacted>); basic rules hold; <redacted>"
    )
    assert redact_text("no secrets here: ws://127.0.0.1:8765/") == "no secrets here: ws://127.0.0.1:8765/"


def test_a_model_card_carries_no_header_or_url_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVER_KEY", "env-key-1234")
    config = {
        "adapter": "websocket",
        "url": "ws://alice:pw-5678@127.0.0.1:9/s?token=q-9012",
        "headers": {"Authorization": "Bearer hdr-3456"},
        "api_key_env": "MY_SERVER_KEY",
    }
    card = create_model(ModelContext(name="websocket", config=config)).card()
    text = repr(card)
    for secret in ("env-key-1234", "pw-5678", "q-9012", "hdr-3456", "alice"):
        assert secret not in text, secret
    assert card["config"]["headers"] == {"Authorization": REDACTED}
    assert card["config"]["url"] == "ws://<redacted>@127.0.0.1:9/s?token=<redacted>"
    assert card["config"]["api_key_env"] == "MY_SERVER_KEY"


def test_error_lines_that_quote_a_url_quote_it_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    from floorbench.processors.registry import ModelError
    from floorbench.transports.server import LiveKitConnection, ServerError

    bad = "http://bob:pw-111@h.example/s?token=t-222"
    with pytest.raises(ModelError) as err:
        create_model(ModelContext(name="websocket", config={"adapter": "websocket", "url": bad}))
    assert "pw-111" not in str(err.value) and "t-222" not in str(err.value)
    assert "http://<redacted>@h.example/s?token=<redacted>" in str(err.value)
    monkeypatch.setenv("LIVEKIT_API_KEY", "k")
    monkeypatch.delenv("LIVEKIT_API_SECRET", raising=False)
    with pytest.raises(ServerError) as err2:
        LiveKitConnection.from_env("wss://lk:pw-333@lk.example/?access_token=t-444")
    assert str(err2.value).startswith("LiveKit URL wss://<redacted>@lk.example/?access_token=<redacted> given but")
    monkeypatch.setenv("LIVEKIT_API_SECRET", "s")
    with pytest.raises(ServerError, match=r"LiveKit URL 'http://<redacted>@lk\.example/' must start"):
        LiveKitConnection.from_env("http://lk:pw-555@lk.example/")


def test_headers_in_any_shape_lose_their_values_and_keep_their_names() -> None:
    cfg = {
        "headers": ["Authorization: Bearer sk-hl-1", ["X-Api-Key", "k-hl-2"], {"name": "Cookie", "value": "c-hl-3"}],
        "http_headers": "X-Goog-Api-Key: g-hl-4",
        "extra_headers": [["X-Count", 7]],
    }
    assert redact(cfg) == {
        "headers": ["Authorization: <redacted>", ["X-Api-Key", REDACTED], {"name": "Cookie", "value": REDACTED}],
        "http_headers": "X-Goog-Api-Key: <redacted>",
        "extra_headers": [["X-Count", REDACTED]],
    }


def test_numbers_under_secret_names_are_secrets_but_token_counts_are_not() -> None:
    cfg = {"api_key": 12345678, "password": 4321.5, "auth": {"pin": 1234}, "token": True, "secret": None,
           "max_tokens": 512, "llm": {"max_output_tokens": 64}}
    assert redact(cfg) == {"api_key": REDACTED, "password": REDACTED, "auth": {"pin": REDACTED}, "token": True,
                           "secret": None, "max_tokens": 512, "llm": {"max_output_tokens": 64}}


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("turn:alice:pw-turn-1@turn.example.com:3478?transport=udp",
         "turn:<redacted>@turn.example.com:3478?transport=<redacted>"),
        ("ice: TURNS:bob:pw-turn-2@t.example:5349 failed", "ice: TURNS:<redacted>@t.example:5349 failed"),
        ("stun:stun.l.google.com:19302", "stun:stun.l.google.com:19302"),
        ("the next turn:T3 begins", "the next turn:T3 begins"),
    ],
)
def test_ice_server_uris_lose_their_user_info(text: str, shown: str) -> None:
    assert redact_text(text) == shown
    assert redact({"ice_servers": [{"urls": text}]}) == {"ice_servers": [{"urls": shown}]}


def test_a_key_pasted_where_an_env_var_name_belongs_is_redacted() -> None:
    from floorbench.redact import is_env_name

    for name in ("OPENAI_API_KEY", "MY_KEY2", "http_proxy", "_X"):
        assert is_env_name(name), name
    for pasted in ("sk-proj-AbC123xyz", "AIzaSyD3fakeKey", "hf_AbCdEfGh", "0123abcd4567ef89", "a1b2c3d4", "", "A B"):
        assert not is_env_name(pasted), pasted
    cfg = {"api_key_env": "sk-proj-AbC123xyz", "llm": {"api_key_env": "MY_LLM_KEY"},
           "pass_env": ["EXTRA_VAR", "hf_AbCdEfGhIj"], "key_env": None}
    assert redact(cfg) == {"api_key_env": REDACTED, "llm": {"api_key_env": "MY_LLM_KEY"},
                           "pass_env": ["EXTRA_VAR", REDACTED], "key_env": None}


@pytest.mark.parametrize(
    ("config", "secret"),
    [
        ({"adapter": "websocket", "url": "ws://127.0.0.1:9/", "headers": "Authorization: Bearer sk-echo-1"}, "sk-echo-1"),
        ({"adapter": "websocket", "url": "ws://127.0.0.1:9/", "headers": {"X-Api-Key": ["k-echo-2"]}}, "k-echo-2"),
        ({"adapter": "websocket", "url": "ws://127.0.0.1:9/", "api_key_env": "sk-proj-echo3XYZ"}, "echo3XYZ"),
        ({"adapter": "websocket", "url": "ws://127.0.0.1:9/", "pass_env": ["hf_EchoFourABC"]}, "EchoFourABC"),
        ({"adapter": "cascade", "llm": {"base_url": "http://h/v1", "model": "m", "api_key_env": "sk-echo5abcDEF"}},
         "echo5abcDEF"),
    ],
)
def test_a_config_error_never_echoes_a_secret_like_value(config: dict[str, object], secret: str) -> None:
    from floorbench.processors.registry import ModelError

    with pytest.raises(ModelError) as err:
        create_model(ModelContext(name=str(config["adapter"]), config=config))
    assert secret not in str(err.value), str(err.value)
    assert "not shown" in str(err.value) or "not hold a key" in str(err.value), str(err.value)


def test_a_config_error_still_shows_a_harmless_value() -> None:
    from floorbench.processors.registry import ModelError

    with pytest.raises(ModelError, match=r"`connect_timeout_s` must be a number, got 'soon'"):
        create_model(ModelContext(name="websocket", config={"url": "ws://127.0.0.1:9/", "connect_timeout_s": "soon"}))


def test_the_judge_the_generator_and_a_voice_refuse_a_key_in_place_of_a_name_without_echoing_it(
    tmp_path: Path,
) -> None:
    from floorbench.scenarios.validate import ScenarioError
    from floorbench.scoring.judges import JudgeError
    from floorbench.scoring.judges.llm import LLMJudge
    from floorbench.speech.tts import TTSError, pipecat_voice_config
    from floorbench.suites.mpe.llm import load_config

    with pytest.raises(JudgeError) as err:
        LLMJudge(model="m", api_key_env="sk-judge-pasted-77")
    assert "sk-judge-pasted-77" not in str(err.value)
    cfg = tmp_path / "llm.yaml"
    cfg.write_text("base_url: http://h/v1\nmodel: m\napi_key_env: sk-gen-pasted-88\n")
    with pytest.raises(ScenarioError) as err2:
        load_config(cfg)
    assert "sk-gen-pasted-88" not in str(err2.value) and "api_key_env" in str(err2.value)
    for voice, key in (("pipecat:pipecat.services.openai.tts:OpenAITTSService?api_key_env=sk-tts-pasted-99", "99"),
                       ("pipecat:pipecat.services.openai.tts:OpenAITTSService?api_key=sk-tts-literal-98", "98"),
                       ("service:x?api_key=sk-tts-literal-97", "97"), ("nope:sk-tts-literal-96", "96")):
        with pytest.raises(TTSError) as err3:
            pipecat_voice_config(voice)
        assert f"sk-tts-pasted-{key}" not in str(err3.value) and f"sk-tts-literal-{key}" not in str(err3.value)
