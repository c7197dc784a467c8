"""One redaction for configs, header maps, URLs and free text (floorbench.redact).

Every expected value is written out literally: a test that took its expectation
from `redact()` itself could not fail.
"""

from __future__ import annotations

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
        "headers": {"Authorization": REDACTED, "X-Vendor-Thing": REDACTED, "X-Count": 3},
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
