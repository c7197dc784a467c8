"""The soak benchmark's own books (benchmarks/soak_ledger.py) on hand-made run folders: what counts as
lost, duplicated and failed-then-retried; its short suite loads; its processes die with it."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import soundfile as sf

from floorbench.pipelines.run import resume
from floorbench.pipelines.run.run_book import entry_of
from floorbench.records import (
    ClockAnchor,
    DialogueTurn,
    DialogueTurns,
    FailureKind,
    Outcome,
    RunMeta,
    read_meta,
    write_json_atomic,
)
from floorbench.scenarios.validate import load_suite
from floorbench.suites.mpe.validate import pairs

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str) -> ModuleType:
    """A module of benchmarks/ (not a package: soak.py imports soak_ledger from beside it)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


ledger = _load("soak_ledger")


def meta(
    sid: str, attempt: int, outcome: Outcome, kind: FailureKind | None = None, room: str = "r"
) -> RunMeta:
    return RunMeta(
        floorbench_version="0",
        scenario_id=sid,
        pair_id="p",
        condition="explicit",
        suite="soak",
        room=room,
        created_wall_ns=0,
        anchor=ClockAnchor(monotonic_ns=0, wall_ns=0),
        outcome=outcome,
        failure_kind=kind,
        attempt=attempt,
    )


def scenario(out: Path, sid: str, *attempts: tuple[Outcome, FailureKind | None], room: str = "r") -> RunMeta:
    """A scenario folder after these attempts (the last in meta.json), with intact records if it completed."""
    d = out / sid
    d.mkdir(parents=True)
    for n, (outcome, kind) in enumerate(attempts[:-1], 1):
        write_json_atomic(d / f"meta.attempt-{n}.json", meta(sid, n, outcome, kind))
    last = meta(sid, len(attempts), *attempts[-1], room=room)
    write_json_atomic(d / "meta.json", last)
    if last.outcome == Outcome.completed:
        turn = DialogueTurn(turn_id=1, speaker="A", label="T", start_ms=0, end_ms=500, gold="x")
        write_json_atomic(
            d / "turns.json", DialogueTurns(scenario_id=sid, pair_id="p", condition="explicit", turns=[turn])
        )
        for name in resume.RECORDINGS:
            sf.write(str(d / name), np.zeros(1600, dtype=np.int16), 16000)
    return last


def run_json(out: Path, entries: list[dict[str, object]]) -> None:
    write_json_atomic(out / "run.json", {"suite": "soak", "scenarios": entries})


DONE = (Outcome.completed, None)


def test_completed_and_retried_scenarios_are_neither_lost_nor_duplicated(tmp_path: Path) -> None:
    metas = [
        scenario(tmp_path, "a", DONE),
        scenario(tmp_path, "b", (Outcome.failed, FailureKind.model_crashed), DONE),
        scenario(
            tmp_path,
            "c",
            (Outcome.failed, FailureKind.server_died),
            (Outcome.failed, FailureKind.interrupted),
            DONE,
        ),
    ]
    run_json(tmp_path, [entry_of(m) for m in metas])
    books = ledger.audit(tmp_path, ["a", "b", "c"])
    assert (books.completed, books.failed_then_retried, books.lost, books.duplicated) == (3, 2, [], [])
    record = books.record()
    assert record["attempts_per_scenario"] == {"1": 1, "2": 1, "3": 1}
    assert record["failure_kinds"] == {"interrupted": 1, "model_crashed": 1, "server_died": 1}


def test_lost_scenarios_are_counted_with_why(tmp_path: Path) -> None:
    metas = [
        scenario(tmp_path, "failed", (Outcome.failed, FailureKind.model_crashed)),
        scenario(tmp_path, "unlisted", DONE),
        scenario(tmp_path, "torn", DONE),
    ]
    (tmp_path / "torn" / "model.wav").write_bytes(b"RIFF torn")
    run_json(tmp_path, [entry_of(metas[0]), entry_of(metas[2])])
    books = ledger.audit(tmp_path, ["failed", "unlisted", "torn", "never"])
    assert books.lost == ["failed", "unlisted", "torn", "never"]
    assert books.completed == 0 and books.duplicated == []
    assert any("unlisted: lost (run.json does not list it as completed)" == p for p in books.problems)
    assert any(p.startswith("torn: lost (no readable model.wav") for p in books.problems)


def test_every_kind_of_duplicate_is_caught(tmp_path: Path) -> None:
    twice = scenario(tmp_path, "twice", DONE, DONE)
    listed = scenario(tmp_path, "listed-twice", DONE)
    gap = scenario(tmp_path, "gap", (Outcome.failed, FailureKind.server_died), DONE)
    (tmp_path / "gap" / "meta.attempt-1.json").rename(tmp_path / "gap" / "meta.attempt-2.json")
    gap.attempt = 3
    write_json_atomic(tmp_path / "gap" / "meta.json", gap)
    miscounted = scenario(tmp_path, "miscounted", (Outcome.failed, FailureKind.server_died), DONE)
    other_room = scenario(tmp_path, "other-room", DONE, room="run-11111111-other-room")
    write_json_atomic(
        tmp_path / "other-room" / "dispatch.json", {"token": "2222222222222222", "state": "published"}
    )
    entries = [entry_of(m) for m in (twice, listed, listed, gap, other_room)]
    entries.append(entry_of(miscounted) | {"attempts": 1})
    run_json(tmp_path, entries)
    books = ledger.audit(tmp_path, ["twice", "listed-twice", "gap", "miscounted", "other-room"])
    assert books.duplicated == ["twice", "listed-twice", "gap", "miscounted", "other-room"]
    assert books.lost == []
    why = {p.split(":")[0]: p for p in books.problems}
    assert "completed by attempts [1, 2]" in why["twice"]
    assert "listed 2 times" in why["listed-twice"]
    assert "attempt numbers on record [2, 3]" in why["gap"]
    assert "run.json says 1 attempts" in why["miscounted"]
    assert "not the published attempt 2222222222222222" in why["other-room"]


def test_the_published_attempt_is_not_a_duplicate(tmp_path: Path) -> None:
    m = scenario(tmp_path, "s", (Outcome.failed, FailureKind.worker_lost), DONE, room="run-abcdef12-s")
    write_json_atomic(tmp_path / "s" / "dispatch.json", {"token": "abcdef1234567890", "state": "published"})
    run_json(tmp_path, [entry_of(m)])
    assert ledger.audit(tmp_path, ["s"]).duplicated == []


def test_short_suite_is_a_valid_suite_of_three_turn_pairs(tmp_path: Path) -> None:
    suite = load_suite(ledger.short_suite(5, tmp_path))
    assert len(suite.scenarios) == 6  # rounded up to whole pairs
    assert all(
        len(s.turns) == 3 and [t.label.value for t in s.turns].count("T") == 1 for s in suite.scenarios
    )
    assert len(pairs(suite.scenarios)) == 3


def test_processes_started_by_the_soak_are_stopped_and_checked(tmp_path: Path) -> None:
    soak = _load("soak")
    procs = soak.Processes()
    proc = procs.spawn([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "p.log", {})
    assert procs.leftover(wait_s=0) != []
    procs.stop_all()
    assert proc.poll() is not None and procs.leftover(wait_s=1) == []
    assert sorted(soak.kill_plan(2, 1, 1, 0)) == ["model", "model", "server", "worker"]


async def test_a_dead_managed_server_is_blamed_over_the_symptom_seen_first() -> None:
    """Seen by the soak: a killed server showed first as `model_left` (not retried); it is `server_died`."""
    from types import SimpleNamespace

    from floorbench.pipelines.run.scenario_run import ScenarioRun

    dead, alive = SimpleNamespace(alive=lambda: False), SimpleNamespace(alive=lambda: True)
    blame = ScenarioRun._blame_server
    kind, reason = await blame(
        SimpleNamespace(server=dead), FailureKind.model_left, "model participant 'model' left"
    )  # type: ignore[arg-type]
    assert kind == FailureKind.server_died and "seen first as: model participant 'model' left" in reason
    assert await blame(SimpleNamespace(server=alive), FailureKind.model_left, "x") == (
        FailureKind.model_left,
        "x",
    )  # type: ignore[arg-type]
    assert await blame(SimpleNamespace(server=None), FailureKind.internal, "x") == (FailureKind.internal, "x")  # type: ignore[arg-type]
    assert await blame(SimpleNamespace(server=dead), FailureKind.bad_input, "x") == (
        FailureKind.bad_input,
        "x",
    )  # type: ignore[arg-type]


def test_a_completed_scenario_whose_files_disagree_with_its_meta_is_counted_inconsistent(tmp_path: Path) -> None:
    """The audit reads every completed scenario's files, not only the books: an attempt glued after a killed
    one's audio (model.wav longer than meta.json says) is inconsistent, never completed."""
    from tests.test_attempt_files import _completed

    for sid in ("good", "glued"):
        _completed(tmp_path / sid)
        m = RunMeta.model_validate_json((tmp_path / sid / "meta.json").read_text())
        write_json_atomic(tmp_path / sid / "meta.json", m.model_copy(update={"suite": "soak"}))
    sf.write(str(tmp_path / "glued" / "model.wav"), np.zeros(32000 + 35200, dtype=np.int16), 16000)
    run_json(tmp_path, [entry_of(read_meta(tmp_path / s)) for s in ("good", "glued")])  # type: ignore[arg-type]
    books = ledger.audit(tmp_path, ["good", "glued"])
    assert (books.completed, books.lost, books.duplicated, books.inconsistent) == (1, [], [], ["glued"])
    assert books.record()["inconsistent"] == 1
    assert books.problems == ["glued: inconsistent (" + str(tmp_path / "glued") +
                              ": model.wav holds 67200 samples, meta.json says 32000)"]


def test_the_chaos_plans_runner_and_publish_kills_and_sees_a_publish_half_done(tmp_path: Path) -> None:
    soak = _load("soak")
    assert sorted(soak.kill_plan(1, 0, 0, 0, runner=2, publish=1)) == ["model", "publish", "runner", "runner"]
    from floorbench.pipelines.dispatch import protocol as dispatch

    class Worker:
        pid = 4242

    folder = tmp_path / "s1"
    token = "6" * 16
    dispatch.open_attempt(folder, token, 2)
    where = dispatch.staging(tmp_path, token)
    where.mkdir(parents=True)
    (where / "claim.json").write_text('{"worker": "box:4242", "scenario_id": "s1", "attempt": 2}')
    assert soak.publishing(tmp_path, Worker()) is None  # dispatched, nothing moved yet
    (folder / "model.wav").write_bytes(b"moved")
    assert soak.publishing(tmp_path, Worker()) == ("s1", token, 2)
    (folder / "meta.json").write_text("{}")  # moved last: the publish is done
    assert soak.publishing(tmp_path, Worker()) is None


def test_the_soak_workers_publish_is_the_real_one_only_slower(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from floorbench.pipelines.dispatch import protocol as dispatch
    from floorbench.pipelines.dispatch.protocol import JobSpec

    slow = _load("soak_worker")
    monkeypatch.setattr(dispatch, "os", dispatch.os)  # the slow moves stay in this test
    spec = JobSpec(suite="soak", suite_hash="h", scenario_id="s1", model="silent", out=str(tmp_path), run_id="r",
                   token="7" * 16)
    folder = tmp_path / "s1"
    dispatch.open_attempt(folder, spec.token, 1)
    staged = dispatch.staging(tmp_path, spec.token) / "s1"
    staged.mkdir(parents=True)
    for name in ("model.wav", "humans.wav", "meta.json"):
        (staged / name).write_text(name)
    t0 = time.monotonic()
    assert slow.slow_publish(tmp_path, spec, "box:1", pause_s=0.1) is True
    assert time.monotonic() - t0 >= 0.3  # a pause after each of the three moves
    assert sorted(p.name for p in folder.iterdir()) == [".dispatch.lock", "dispatch.json", "humans.wav", "meta.json",
                                                      "model.wav"]
    assert dispatch.current(folder)["state"] == "published"
