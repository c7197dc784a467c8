"""Model configs are typed: every shipped config loads, and a mistyped key is one line naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import floorbench
from floorbench.processors.cascade import CascadeSettings
from floorbench.processors.registry import (
    BUILTIN_MODELS,
    ModelContext,
    ModelError,
    check_config,
    create_model,
    model_class,
)

MODEL_CONFIGS = sorted((Path(floorbench.__file__).parent / "data" / "models").glob("*.yaml"))


def _yaml(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict), path
    return data


def test_configs_are_shipped():
    assert {p.stem for p in MODEL_CONFIGS} >= {"cascade", "websocket-local", "moshi-local", "openai-realtime"}


@pytest.mark.parametrize("path", MODEL_CONFIGS, ids=lambda p: p.name)
def test_every_shipped_config_loads(path: Path):
    settings = check_config(_yaml(path), str(path))
    assert settings.adapter == _yaml(path)["adapter"]


@pytest.mark.parametrize("path", MODEL_CONFIGS, ids=lambda p: p.name)
def test_a_mistyped_key_is_one_line_naming_key_file_and_model(path: Path):
    config = {**_yaml(path), "connect_timeout": 5}
    with pytest.raises(ModelError) as e:
        check_config(config, str(path))
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}: model {config['adapter']}: unknown key `connect_timeout`"), msg


def test_a_nested_mistyped_key_names_its_path_and_the_keys_that_exist():
    with pytest.raises(ModelError) as e:
        create_model(ModelContext(name="cascade", config={"vad": {"onset": 64}}))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("model cascade: unknown key `vad.onset`"), msg
    assert "onset_ms" in msg and "end_silence_ms" in msg


@pytest.mark.parametrize(
    ("name", "config", "expected"),
    [
        ("echo", {"delay": 100}, "model echo: unknown key `delay`"),
        ("echo", {"delay_ms": -5}, "model echo: `delay_ms` must be ≥ 0, got -5"),
        ("eager", {"replies": []}, "model eager: `replies`"),
        ("eager", {"end_silence": 300}, "model eager: unknown key `end_silence`"),
        ("silent", {"voice": "x"}, "model silent: unknown key `voice`"),
        ("oracle", {"response_delay": 1}, "model oracle: unknown key `response_delay`"),
        ("external", {"identity": "bot", "join_timeout": 5}, "model external: unknown key `join_timeout`"),
        ("websocket", {"url": "ws://x", "frame": 20}, "model websocket: unknown key `frame`"),
        ("websocket", {"url": "ws://x", "frame_ms": 30}, "model websocket: `frame_ms` must be one of 10, 20"),
        ("moshi", {"max_backlog": 100}, "model moshi: unknown key `max_backlog`"),
        ("moshi", {"max_backlog_ms": True}, "model moshi: `max_backlog_ms` must be a whole number"),
        (
            "pipecat-service",
            {"service": "openai-realtime", "sytem_prompt": "x"},
            "unknown key `sytem_prompt`",
        ),
        ("cascade", {"barge_in_ms": 64}, "model cascade: unknown key `barge_in_ms`"),
        (
            "cascade",
            {"llm": {"base_url": "http://x/v1", "model": "m", "temprature": 0}},
            "unknown key `llm.temprature`",
        ),
        ("cascade", {"llm": {"base_url": "ftp://x", "model": "m"}}, "`llm.base_url` must be an http(s) URL"),
        (
            "cascade",
            {"llm": {"base_url": "http://x", "model": "m", "api_key": "sk-1"}},
            "do not put `api_key`",
        ),
    ],
)
def test_every_adapter_refuses_what_it_does_not_declare(name: str, config: dict, expected: str):
    with pytest.raises(ModelError) as e:
        create_model(ModelContext(name=name, config=config))
    assert expected in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_the_shipped_cascade_config_spells_out_the_defaults():
    """cascade.yaml says "these are the defaults": it must agree with CascadeSettings."""
    (path,) = [p for p in MODEL_CONFIGS if p.stem == "cascade"]
    shipped = CascadeSettings.load(_yaml(path), "cascade", str(path))
    assert shipped.model_dump(exclude={"adapter"}) == CascadeSettings().model_dump(exclude={"adapter"})


@pytest.mark.parametrize("name", sorted(BUILTIN_MODELS))
def test_every_builtin_declares_its_settings(name: str):
    settings_cls = model_class(name).Settings
    assert settings_cls.model_config.get("extra") == "forbid", name
    for key in ("adapter", "class", "identity"):  # what every config may carry
        assert key in {f.alias or n for n, f in settings_cls.model_fields.items()}, (name, key)


def test_a_model_is_declared_by_its_class_line():
    from floorbench.processors.adapter_config import AdapterSettings
    from floorbench.processors.registry import Model

    class PitchSettings(AdapterSettings):
        pitch_hz: int = 880

    class Loud(PitchSettings):
        gain_db: float = 0.0

    class Chime(Model[PitchSettings], name="chime-test"):
        pass

    class Gong(Chime, name="gong-test", joins="external", settings=Loud):
        pass

    class Bell(Chime):  # a subclass keeps what it does not say
        name = "bell-test"

    assert (Chime.name, Chime.joins, Chime.Settings) == ("chime-test", "pipeline", PitchSettings)
    assert (Gong.name, Gong.joins, Gong.Settings) == ("gong-test", "external", Loud)
    assert (Bell.name, Bell.joins, Bell.Settings) == ("bell-test", "pipeline", PitchSettings)
    assert Chime(ModelContext(name="chime-test", config={"pitch_hz": 440})).settings.pitch_hz == 440
    with pytest.raises(ModelError, match="gain_db"):  # the keyword's settings class is the one read
        Gong(ModelContext(name="gong-test", config={"gain_db": "loud"}))


def test_the_class_attributes_of_a_model_mean_what_the_keywords_do():
    from floorbench.processors.adapter_config import AdapterSettings
    from floorbench.processors.registry import Model

    class PitchSettings(AdapterSettings):
        pitch_hz: int = 880

    class Chime(Model[AdapterSettings]):  # the body's Settings wins over the class line's
        name = "chime-test"
        joins = "external"
        Settings = PitchSettings

    assert (Chime.name, Chime.joins, Chime.Settings) == ("chime-test", "external", PitchSettings)
    assert Chime(ModelContext(name="chime-test", config={"pitch_hz": 440})).settings.pitch_hz == 440  # type: ignore[attr-defined]


def test_a_user_model_without_settings_keeps_any_key():
    from floorbench.processors.registry import Model

    class Mine(Model):
        name = "mine-test"

    m = Mine(ModelContext(name="mine-test", config={"anything": 1}))
    assert m.config == {"anything": 1} and m.matches("model") and not m.matches("recorder")
