"""Suite turns' scenario files: the fixture loads with its audio, every rule of the validator
is one line naming file, scenario and clip, and the generator is deterministic and valid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from floorbench.scenarios.render import plan
from floorbench.scenarios.validate import ScenarioError, load_scenario_file, load_suite
from floorbench.suites.turns.generate import dump_turns_scenario, generate_dialogues, write_turns_suite
from floorbench.suites.turns.rules import CONVERSATION_TYPES
from floorbench.suites.turns.schema import TurnsScenario

FIXTURE = Path(__file__).parent / "fixtures" / "suites" / "turns-tiny"


def test_fixture_loads_with_audio_and_plans_through_the_shared_render_path() -> None:
    suite = load_suite(FIXTURE, audio=True)
    assert suite.suite.suite == "turns"
    assert [s.scenario_id for s in suite.scenarios] == ["tt01-pause-backchannel", "tt02-barge-in"]
    assert all(isinstance(s, TurnsScenario) for s in suite.scenarios)
    clips, where = plan(suite, 16000)
    assert len(clips) == 7 and ("tt02-barge-in", 2) in where  # 6 clips and the preamble


def base() -> dict[str, Any]:
    return {
        "suite": "turns", "scenario_id": "x", "conversation_type": "casual",
        "speakers": {"U": {"name": "U", "voice": "piper:joe"}},
        "turns": [
            {"id": 1, "speaker": "U", "label": "pause", "text": "a", "pause_ms": 800},
            {"id": 2, "speaker": "U", "label": "eot", "text": "b"},
            {"id": 3, "speaker": "U", "label": "backchannel", "text": "mm", "offset_ms": 1500},
        ],
    }


def load(tmp_path: Path, data: dict[str, Any]) -> None:
    p = tmp_path / "x.yaml"
    p.write_text(yaml.safe_dump(data))
    load_scenario_file(p)


def test_a_valid_scenario_loads(tmp_path: Path) -> None:
    load(tmp_path, base())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["turns"][0].update(pause_ms=300), "clip 1: pause_ms=300; a pause lasts 400–1500 ms"),
        (lambda d: d["turns"][0].update(pause_ms=1501), "clip 1: pause_ms=1501; a pause lasts 400–1500 ms"),
        (lambda d: d["turns"][2].pop("offset_ms"), "clip 3: a backchannel needs offset_ms"),
        (lambda d: d["turns"][2].update(offset_ms=200), "clip 3: offset_ms=200; use 300–10000 ms"),
        (lambda d: d["turns"][1].update(offset_ms=900), "clip 2: offset_ms on a eot clip"),
        (lambda d: d["turns"].insert(1, {"id": 2, "speaker": "U", "label": "noise", "text": "m"})
         or [t.update(id=i) for i, t in enumerate(d["turns"], 1)],
         "clip 2: a noise clip after a pause"),
        (lambda d: d["turns"].insert(0, {"id": 0, "speaker": "U", "label": "interrupt", "text": "w", "offset_ms": 900}),
         "clip ids must be 1, 2, 3"),
        (lambda d: d["turns"].append({"id": 4, "speaker": "U", "label": "pause", "text": "p", "pause_ms": 500}),
         "clip 4: the last clip is a pause"),
        (lambda d: d.update(conversation_type="debate"), "conversation_type 'debate'"),
        (lambda d: d["turns"][1].update(speaker="B"), "clip 2: speaker 'B' is not in speakers"),
        (lambda d: d["turns"][2].update(reply="hi"), "clip 3: reply on a backchannel clip"),
        (lambda d: d["turns"][1].update(label="mumble"), "turn 2"),
    ],
)
def test_each_rule_is_one_line_naming_file_scenario_and_clip(tmp_path: Path, change: Any, message: str) -> None:
    data = base()
    change(data)
    with pytest.raises(ScenarioError) as e:
        load(tmp_path, data)
    text = str(e.value)
    assert "\n" not in text and str(tmp_path / "x.yaml") in text and message in text, text


def test_a_clip_timed_against_the_model_must_follow_an_end_of_turn(tmp_path: Path) -> None:
    data = base()
    data["turns"] = [{"id": 1, "speaker": "U", "label": "backchannel", "text": "mm", "offset_ms": 900},
                     {"id": 2, "speaker": "U", "label": "eot", "text": "b"}]
    with pytest.raises(ScenarioError, match="clip 1: a clip timed against the model must follow an end of turn"):
        load(tmp_path, data)


def test_generator_is_deterministic_valid_and_covers_every_conversation_type(tmp_path: Path) -> None:
    a = [dump_turns_scenario(s) for s in generate_dialogues(10, seed=7)]
    b = [dump_turns_scenario(s) for s in generate_dialogues(10, seed=7)]
    c = [dump_turns_scenario(s) for s in generate_dialogues(10, seed=8)]
    assert a == b and a != c
    write_turns_suite(tmp_path / "s", 20, seed=1)
    suite = load_suite(tmp_path / "s", audio=False)
    scen = [s for s in suite.scenarios if isinstance(s, TurnsScenario)]
    assert len(scen) == 20 and {s.conversation_type for s in scen} == set(CONVERSATION_TYPES)
    labels = {c.label.value for s in scen for c in s.turns}
    assert labels == {"eot", "pause", "interrupt", "backchannel", "noise"}
    with pytest.raises(ScenarioError, match="not empty; pass --force"):
        write_turns_suite(tmp_path / "s", 2, seed=1)


def test_suite_info_counts_clips_and_conversation_types() -> None:
    from typer.testing import CliRunner

    from floorbench.cli import app
    from floorbench.scenarios.info import suite_info

    si = suite_info(FIXTURE)
    assert si.labels == {"eot": 3, "pause": 1, "interrupt": 1, "backchannel": 1, "noise": 0}
    assert si.attributes == {"conversation_type": {"storytelling": 1, "task-oriented": 1}}
    assert si.audio_problems == [] and si.dialogue_mean_ms == (1720 + 1190 + 770 + 1300 + 1920 + 1560) // 2
    res = CliRunner().invoke(app, ["suite", "info", str(FIXTURE)])
    assert res.exit_code == 0 and "backchannel" in res.output, res.output
