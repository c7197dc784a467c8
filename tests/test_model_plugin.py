"""A model from outside floorbench: installed by entry point, found by name, then run live.

The model `chime` lives in a package written to a temporary folder, with a dist-info that declares
it under the entry point group ``floorbench.models``, exactly as a third-party distribution would
after ``pip install``. It is the least a model needs: a `Model` subclass with a name and its
settings (it says nothing: its processors are the silent reference agent's). The unit tests check
that it is listed and resolved by name with nothing imported before it is asked for; the live
test plays one scenario with it, so the room's model child process (which resolves the name
itself) finds it the same way.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from floorbench.processors import registry

PACKAGE = '''
    """Model `chime`: an outside system under test (a minimal model plug-in)."""

    from floorbench.processors.adapter_config import AdapterSettings
    from floorbench.processors.reference import SilentAgent


    class ChimeSettings(AdapterSettings):
        pitch_hz: int = 880


    class ChimeModel(SilentAgent, name="chime", settings=ChimeSettings):
        """Says nothing: the silent reference agent's processors, under its own name and settings."""
'''


@pytest.fixture
def chime_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The model installed as a distribution would be: a module plus a dist-info with its entry point."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "chime_model.py").write_text(textwrap.dedent(PACKAGE).lstrip())
    info = site / "chime_model-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: chime-model\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[floorbench.models]\nchime = chime_model:ChimeModel\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    registry.reload_entry_points()
    yield site
    sys.modules.pop("chime_model", None)
    registry.reload_entry_points()


def test_an_installed_model_is_listed_and_resolved_by_name_lazily(chime_installed: Path) -> None:
    assert "chime" in registry.model_names()
    assert "chime_model" not in sys.modules  # listed without being imported
    assert registry.model_source("chime") == "chime_model:ChimeModel"
    model = registry.create_model(registry.ModelContext(name="chime", config={"pitch_hz": 440}))
    assert type(model).__module__ == "chime_model" and model.settings.pitch_hz == 440  # type: ignore[attr-defined]
    assert model.card()["adapter"] == "chime_model:ChimeModel"
    with pytest.raises(registry.ModelError, match="pitch"):  # its own settings are checked like a built-in's
        registry.check_config({"adapter": "chime", "pitch_hz": "high"}, "chime.yaml")

    from floorbench.cli import app

    res = CliRunner().invoke(app, ["models"])
    assert res.exit_code == 0 and "chime" in res.output and "chime_model:ChimeModel" in res.output, res.output


def test_a_model_not_installed_is_one_error_naming_the_choices(chime_installed: Path) -> None:
    with pytest.raises(registry.ModelError, match=r"unknown model 'chimes'; choose one of .*chime"):
        registry.model_class("chimes")


@pytest.mark.live
def test_an_out_of_tree_model_plays_a_room(tmp_path: Path, chime_installed: Path, livekit, tiny_suite: Path) -> None:
    from floorbench.pipelines.run.runner import RunOptions, run_suite

    scenario = sorted(p.stem for p in (tiny_suite / "scenarios").glob("*.yaml"))[0]
    out = tmp_path / "chime"
    asyncio.run(run_suite(RunOptions(suite=tiny_suite, model="chime", out=out, connection=livekit,
                                     scenarios=[scenario], progress=False)))
    meta = json.loads((out / scenario / "meta.json").read_text())
    assert meta["outcome"] == "completed", meta.get("failure_reason")
    assert meta["model"]["adapter"] == "chime_model:ChimeModel"
