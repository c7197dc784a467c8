"""`run --concurrency auto`: the controller's rules, and the runner steering N by timing verdicts (no rooms)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import typer

from floorbench.pipelines.commands import AUTO_MAX_ROOMS, parse_concurrency
from floorbench.pipelines.run import runner
from floorbench.pipelines.run.auto_concurrency import AutoConcurrency, estimate
from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.records import FailureKind, Outcome, RunMeta
from floorbench.suites.mpe.schema import Scenario
from tests.test_concurrency_units import CONN, IDS
from tests.test_resume import TINY, folder, meta


def test_starts_from_one_room_per_core() -> None:
    assert (estimate(1), estimate(2), estimate(16)) == (1, 2, 16)


def test_a_degraded_verdict_lowers_n_once_per_generation() -> None:
    auto = AutoConcurrency(4, 8)
    gens = [auto.started() for _ in range(4)]  # four rooms started under N = 4
    auto.finished(gens[0], "degraded")
    assert auto.n == 3
    auto.finished(gens[1], "degraded")  # started before the change: says nothing new
    assert auto.n == 3
    auto.finished(auto.started(), "degraded")  # started under N = 3
    assert auto.n == 2
    assert [(c.n, c.reason) for c in auto.changes] == [
        (4, "start"), (3, "a scenario came back degraded"), (2, "a scenario came back degraded"),
    ]


def test_oks_in_a_row_of_the_current_generation_raise_n_up_to_the_ceiling() -> None:
    auto = AutoConcurrency(1, 2, raise_after=3)
    old = auto.started()
    for _ in range(2):
        auto.finished(auto.started(), "ok")
    assert auto.n == 1
    auto.finished(auto.started(), "ok")
    assert auto.n == 2
    auto.finished(old, "ok")  # an older generation's ok does not count toward the next raise
    for _ in range(5):
        auto.finished(auto.started(), "ok")
    assert auto.n == 2  # the ceiling


def test_failures_say_nothing_about_capacity_and_n_never_falls_below_one() -> None:
    auto = AutoConcurrency(1, 4)
    auto.finished(auto.started(), None)
    auto.finished(auto.started(), "degraded")
    assert auto.n == 1 and len(auto.changes) == 1


def test_a_start_outside_the_bounds_is_refused() -> None:
    with pytest.raises(ValueError, match="auto concurrency"):
        AutoConcurrency(5, 4)


@pytest.mark.parametrize(
    ("text", "want"), [("3", (3, False)), ("auto", (AUTO_MAX_ROOMS, True)), ("auto:6", (6, True)), (" AUTO ", (16, True))]
)
def test_the_option_takes_a_number_or_auto(text: str, want: tuple[int, bool]) -> None:
    assert parse_concurrency(text) == want


def test_a_wrong_option_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit):
        parse_concurrency("lots")
    assert "--concurrency 'lots': use a number of rooms (1..64), 'auto' or 'auto:MAX'" in capsys.readouterr().err


class DegradingRooms:
    """Stands in for `_Runner._attempts`: with more than `capacity` rooms at once a scenario comes back degraded."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.live = 0
        self.peaks: list[int] = []
        self.played: list[str] = []

    async def attempts(self, run: runner._Runner, scenario: Scenario) -> RunMeta:
        sid = scenario.scenario_id
        self.played.append(sid)
        self.live += 1
        self.peaks.append(self.live)
        crowded = self.live > self.capacity
        await asyncio.sleep(0.2 if sid == IDS[0] else 0.05)  # the second room ends first, while the first plays
        self.live -= 1
        shutil.rmtree(run.out / sid, ignore_errors=True)
        folder(run.out, sid, degraded=crowded)
        return meta(sid, Outcome.completed, degraded=crowded)


def auto_run_options(out: Path, monkeypatch: pytest.MonkeyPatch, rooms: DegradingRooms, start: int) -> RunOptions:
    """`run --concurrency auto` (ceiling 4, starting at `start`) over stand-in rooms, no server."""

    async def reachable(conn: object, timeout_s: float = 5.0) -> None:
        return None

    monkeypatch.setattr(runner, "check_reachable", reachable)
    monkeypatch.setattr(runner, "estimate", lambda: start)
    monkeypatch.setattr(runner._Runner, "_attempts", lambda self, s: rooms.attempts(self, s))
    return RunOptions(suite=TINY, model="silent", out=out, connection=CONN, progress=False, concurrency=4, auto_concurrency=True)


def test_the_runner_lowers_n_and_runs_degraded_scenarios_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rooms = DegradingRooms(capacity=1)
    out = tmp_path / "run"
    summary = asyncio.run(run_suite(auto_run_options(out, monkeypatch, rooms, start=2)))
    run_json = json.loads((out / "run.json").read_text())
    changes = run_json["sessions"][-1]["concurrency"]
    assert changes[0] == {"n": 2, "reason": "start", "after_scenarios": 0}
    assert changes[1]["n"] == 1 and changes[1]["reason"] == "a scenario came back degraded"
    # the second room came back degraded (two at once, capacity one): N fell to 1, and it ran again, alone
    assert rooms.played[:2] == IDS[:2] and sorted(rooms.played[2:]) == sorted([IDS[1], *IDS[2:]])
    assert rooms.peaks[:2] == [1, 2] and max(rooms.peaks[2:]) == 1
    assert summary.completed == 4 and summary.degraded == 0
    assert [e["timing"] for e in run_json["scenarios"]] == ["ok"] * 4


def test_infrastructure_failures_do_not_move_n(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def crashing(self: runner._Runner, scenario: Scenario) -> RunMeta:
        folder(self.out, scenario.scenario_id, Outcome.failed, kind=FailureKind.server_died)
        return meta(scenario.scenario_id, Outcome.failed, FailureKind.server_died)

    async def reachable(conn: object, timeout_s: float = 5.0) -> None:
        return None

    monkeypatch.setattr(runner, "check_reachable", reachable)
    monkeypatch.setattr(runner._Runner, "_attempts", crashing)
    out = tmp_path / "run"
    opts = RunOptions(suite=TINY, model="silent", out=out, connection=CONN, progress=False, concurrency=3, auto_concurrency=True)
    asyncio.run(run_suite(opts))
    changes = json.loads((out / "run.json").read_text())["sessions"][-1]["concurrency"]
    assert [c["reason"] for c in changes] == ["start"]


def test_degraded_at_the_floor_is_kept_not_played_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A machine whose rooms come back degraded even alone: replaying at the same N meets the same machine."""
    rooms = DegradingRooms(capacity=0)
    out = tmp_path / "run"
    with caplog.at_level("WARNING", logger="floorbench.pipelines.run.runner"):
        summary = asyncio.run(run_suite(auto_run_options(out, monkeypatch, rooms, start=1)))
    assert rooms.played == IDS and max(rooms.peaks) == 1  # each once, one at a time
    assert summary.completed == 4 and summary.degraded == 4
    floor = [r.getMessage() for r in caplog.records if "the fewest --concurrency auto uses" in r.getMessage()]
    assert len(floor) == 1 and "1 room(s)" in floor[0]
    changes = json.loads((out / "run.json").read_text())["sessions"][-1]["concurrency"]
    assert changes == [{"n": 1, "reason": "start", "after_scenarios": 0}]


def test_a_degraded_scenario_is_worth_replaying_only_with_fewer_rooms() -> None:
    auto = AutoConcurrency(2, 4)
    crowded = auto.started()
    auto.finished(crowded, "degraded")
    alone = auto.started()
    assert auto.started_under(crowded) == 2 and auto.worth_rerun(crowded)
    assert auto.started_under(alone) == 1 and not auto.worth_rerun(alone)
