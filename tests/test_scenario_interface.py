"""Every suite's scenario record meets the engine's scenario interface (`floorbench.scenarios.interface`).

The run loop, its records and the model's context read a scenario only through
`ScenarioRecord` and `ScenarioTurn`; pyright checks suite mpe's record against them where it
flows into the engine, and this test checks each suite's loaded records, values included
(a property that returns the wrong type would pass an attribute check alone).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from floorbench.scenarios.interface import ScenarioRecord, ScenarioTurn
from floorbench.scenarios.validate import load_suite

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "suites"


def agent_suite(tmp_path: Path) -> Path:
    from floorbench.suites.agent.commands import collect
    from floorbench.suites.agent.importer import write_test_suite

    out = tmp_path / "agent-suite"
    write_test_suite(collect([ROOT / "examples" / "tests" / "basic.yaml"]), out, 1)
    return out


def check(s: object, suite: str) -> None:
    assert isinstance(s, ScenarioRecord), f"{type(s).__name__} lacks part of ScenarioRecord"
    assert s.suite == suite and isinstance(s.scenario_id, str) and s.scenario_id
    assert s.run_fields and all(isinstance(k, str) and isinstance(v, str) for k, v in s.run_fields.items())
    assert s.turns, f"{s.scenario_id}: no turns"
    for t in s.turns:
        assert isinstance(t, ScenarioTurn), f"{type(t).__name__} lacks part of ScenarioTurn"
        assert isinstance(t.id, int) and isinstance(t.speaker, str) and isinstance(t.label, str)
        assert isinstance(t.text, str) and (t.audio is None or isinstance(t.audio, str))


@pytest.mark.parametrize(("folder", "suite"), [("tiny", "mpe"), ("turns-tiny", "turns"), ("av-tiny", "av"), (None, "agent")])
def test_every_suites_records_meet_the_scenario_interface(folder: str | None, suite: str, tmp_path: Path) -> None:
    root = FIXTURES / folder if folder else agent_suite(tmp_path)
    loaded = load_suite(root, audio=False)
    assert loaded.scenarios
    for s in loaded.scenarios:
        check(s, suite)


def test_a_record_missing_a_part_is_seen() -> None:
    class NoTurns:
        suite, scenario_id, pair_id, condition = "x", "x1", "x1", "x"

    with pytest.raises(AssertionError, match="lacks part of ScenarioRecord"):
        check(NoTurns(), "x")
