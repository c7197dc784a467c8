"""`run --concurrency N` without rooms: the worker pool, run.json under concurrent finishes,
an interrupt with several scenarios running, the progress lines, and record work off the loop."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import threading
from pathlib import Path

import pytest

from floorbench.pipelines.run import runner
from floorbench.pipelines.run.progress import RunProgress, Tally, format_left
from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.records import FailureKind, Outcome, RunMeta, write_json_atomic
from floorbench.scenarios.validate import load_suite
from floorbench.suites.mpe.schema import Scenario
from floorbench.transports.server import LiveKitConnection
from tests.test_resume import TINY, folder, meta

CONN = LiveKitConnection("ws://127.0.0.1:1", "k", "s")
IDS = [s.scenario_id for s in load_suite(TINY).scenarios]


class FakeRooms:
    """Stands in for `_Runner._attempts`: each scenario 'plays' for `play_s` and leaves its folder."""

    def __init__(self, play_s: float = 0.05, fail: str = "") -> None:
        self.play_s = play_s
        self.fail = fail
        self.live = 0
        self.peak = 0
        self.started: list[str] = []
        self.two_running = asyncio.Event()

    async def attempts(self, run: runner._Runner, scenario: Scenario) -> RunMeta:
        sid, out = scenario.scenario_id, run.out
        self.started.append(sid)
        self.live += 1
        self.peak = max(self.peak, self.live)
        if self.live >= 2:
            self.two_running.set()
        (out / sid).mkdir(parents=True, exist_ok=True)
        write_json_atomic(out / sid / "meta.json", meta(sid, Outcome.in_progress))
        try:
            await asyncio.sleep(self.play_s)
        except asyncio.CancelledError:
            write_json_atomic(out / sid / "meta.json", meta(sid, Outcome.failed, FailureKind.interrupted))
            raise
        finally:
            self.live -= 1
        shutil.rmtree(out / sid)
        if sid == self.fail:
            folder(out, sid, Outcome.failed, kind=FailureKind.model_crashed)
            return meta(sid, Outcome.failed, FailureKind.model_crashed)
        folder(out, sid)
        return meta(sid, Outcome.completed)


@pytest.fixture
def rooms(monkeypatch: pytest.MonkeyPatch) -> FakeRooms:
    fake = FakeRooms()

    async def reachable(conn: object, timeout_s: float = 5.0) -> None:
        return None

    monkeypatch.setattr(runner, "check_reachable", reachable)
    monkeypatch.setattr(runner._Runner, "_attempts", lambda self, s: fake.attempts(self, s))
    return fake


def _entries(out: Path) -> list[tuple[str, str, str | None]]:
    run_json = json.loads((out / "run.json").read_text())
    return [(e["scenario_id"], e["outcome"], e["failure_kind"]) for e in run_json["scenarios"]]


@pytest.mark.parametrize("n", [1, 2, 4, 64])
def test_n_at_once_runs_every_scenario_exactly_once_in_suite_order(tmp_path: Path, rooms: FakeRooms, n: int) -> None:
    rooms.fail = IDS[1]
    out = tmp_path / "run"
    summary = asyncio.run(run_suite(RunOptions(suite=TINY, model="silent", out=out, connection=CONN, progress=False, concurrency=n)))
    assert rooms.started == IDS
    assert rooms.peak == min(n, len(IDS))
    assert _entries(out) == [
        (IDS[0], "completed", None), (IDS[1], "failed", "model_crashed"), (IDS[2], "completed", None),
        (IDS[3], "completed", None),
    ]
    assert (summary.completed, summary.failed, summary.counts["timing_ok"]) == (3, 1, 3)


@pytest.mark.parametrize("n", [0, 65])
def test_concurrency_out_of_bounds_is_refused_before_anything_is_written(tmp_path: Path, n: int) -> None:
    with pytest.raises(ValueError, match=rf"^--concurrency must be 1\.\.64, got {n}$"):
        asyncio.run(run_suite(RunOptions(suite=TINY, model="silent", out=tmp_path / "o", concurrency=n)))
    assert not (tmp_path / "o").exists()


def test_an_interrupt_marks_every_running_scenario_and_leaves_the_rest_not_run(tmp_path: Path, rooms: FakeRooms) -> None:
    rooms.play_s = 30.0
    out = tmp_path / "run"

    async def go() -> None:
        task = asyncio.create_task(
            run_suite(RunOptions(suite=TINY, model="silent", out=out, connection=CONN, progress=False, concurrency=2))
        )
        await asyncio.wait_for(rooms.two_running.wait(), 10.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert _entries(out) == [
        (IDS[0], "failed", "interrupted"), (IDS[1], "failed", "interrupted"), (IDS[2], "not_run", None),
        (IDS[3], "not_run", None),
    ]
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["counts"]["not_run"] == 2 and "ended_wall" in run_json
    assert not (out / IDS[2]).exists()


def test_progress_lines_count_running_completed_failed_degraded_and_time_left() -> None:
    stream = io.StringIO()
    p = RunProgress("lines", 4, stream)
    for sid in ("a", "b", "c"):
        p.started(sid)
    p.tally.started_s -= 100.0  # two finished in 100 s: 2 left at 50 s each
    p.finished(meta("a", Outcome.completed, degraded=True))
    p.finished(meta("b", Outcome.failed, FailureKind.model_crashed))
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("a: completed — timing degraded: ")
    assert lines[0].endswith("[1/4 done; running 2, completed 1, failed 0, timing degraded 1; ~5m00s left]")
    assert lines[1] == "b: failed [2/4 done; running 1, completed 1, failed 1, timing degraded 1; ~1m40s left]"
    p.close()


def test_time_left_is_unknown_until_one_finishes_and_hours_read_as_hours() -> None:
    t = Tally(10, started_s=0.0)
    assert t.left_s(5.0) is None and format_left(None) == "time left unknown"
    t.completed = 1
    assert t.left_s(400.0) == 3600.0
    assert format_left(3600.0) == "~1h00m left" and format_left(59.6) == "~1m00s left"


def test_a_scenario_s_records_are_computed_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Other rooms keep playing while one finishes: `_finish_records` runs in a worker thread."""
    from floorbench.pipelines.run.scenario_run import ScenarioRun, ScenarioSettings

    suite = load_suite(TINY)
    model = runner._model_for(RunOptions(suite=TINY, model="silent", out=tmp_path), suite, suite.scenarios[0])
    run = ScenarioRun("r", suite, suite.scenarios[0], model, LiveKitConnection("ws://x", "k", "s"), tmp_path,
                      ScenarioSettings())
    threads: dict[str, int] = {}

    async def play(timeline: object) -> None:
        threads["loop"] = threading.get_ident()

    async def stop() -> dict[str, object]:
        return {}

    def finish(playback: object, infos: object) -> None:
        threads["records"] = threading.get_ident()

    monkeypatch.setattr(run, "_play", play)
    monkeypatch.setattr(run, "_stop_participants", stop)
    monkeypatch.setattr(run, "_finish_records", finish)
    result = asyncio.run(run.run())
    assert result.outcome == Outcome.completed
    assert threads["records"] != threads["loop"]
